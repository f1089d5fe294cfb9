"""The Stripe part of the hosted checkout: a PaymentIntent for the amount due, and the Payment
Element that confirms it in the page (Stripe.js), then sends the player to the return URL.

Kept apart from the page's look (checkout.pages): `payment_method` is what the checkout
template places in its payment slot (templates/hosted/payment/stripe.html, where the sandbox's
card field goes) with the policy directives the page must add for it. The page loads Stripe.js
and one inline script (templates/hosted/payment/stripe.js) allowed by its hash; the script reads
everything it needs (publishable key, client secret, return URL) from the form's data
attributes, so its text, and so its hash, never changes.
"""

from __future__ import annotations

import logging
import secrets
from urllib.parse import urlsplit

from webstore.basket import Basket
from webstore.catalog import PackageType, Store
from webstore.checkout import pages
from webstore.checkout.stripe_gateway import AmountNotPayable, StripeGateway, StripeIntent
from webstore.html import PageResult, asset_hash
from webstore.services import Services

logger = logging.getLogger(__name__)

# Stripe.js's own documented needs (frames for the Payment Element and 3-D Secure, its API).
STRIPE_FRAMES = ("https://js.stripe.com", "https://hooks.stripe.com")
STRIPE_CONNECT = ("https://api.stripe.com",)

SCRIPT = "hosted/payment/stripe.js"  # the one inline script (a template asset), allowed by its hash


def description(basket: Basket) -> str:
    """The PaymentIntent's description: what the port's charge names (checkout.pay)."""
    return f"Basket {basket.ident}"


def create_intent(services: Services, basket: Basket, store: Store, gateway: StripeGateway) -> StripeIntent:
    """A PaymentIntent for the basket's amount due (priced by the basket's own code), one per
    page render: its Stripe idempotency key is this render's, so a retried create is the same
    intent and a reload is a new attempt."""
    render = secrets.token_urlsafe(12)
    return gateway.create_intent(
        idempotency_key=f"checkout-{basket.ident}-{render}",
        amount=basket.total_price - basket.giftcard_amount,
        currency=basket.currency,
        description=description(basket),
        metadata={"basket_ident": basket.ident, "account_id": str(store.id), "store": store.name[:100]},
        email=basket.email,
        save_method=any(line.type is PackageType.SUBSCRIPTION for line in basket.lines),
    )


def payment_method(
    *, publishable_key: str, client_secret: str, return_url: str, email: str, js_url: str
) -> pages.PaymentMethod:
    """The Payment Element in the checkout's payment slot (templates/hosted/payment/stripe.html):
    the form's data attributes (read by the script), the element's mount point and error line,
    the scripts and what they need."""
    return pages.PaymentMethod(
        template="hosted/payment/stripe.html",
        data={
            "publishable_key": publishable_key,
            "client_secret": client_secret,
            "return_url": return_url,
            "email": email,
            "js_url": js_url,
        },
        policy=stripe_directives(js_url),
    )


NOTHING_TO_PAY = pages.PaymentMethod(template="hosted/payment/none.html")  # the plain pay form, no card


def stripe_directives(stripe_js_url: str, script: str = SCRIPT) -> str:
    """What Stripe.js needs beyond the hosted pages' policy: its script (and ours, `script`, a
    template asset, by hash), its frames and its API. Nothing else loads."""
    parts = urlsplit(stripe_js_url)
    script_origin = f"{parts.scheme}://{parts.netloc}"
    frames = " ".join(dict.fromkeys((*STRIPE_FRAMES, script_origin)))
    connect = " ".join(dict.fromkeys((*STRIPE_CONNECT, script_origin)))
    return (
        f"script-src {script_origin} 'sha256-{asset_hash(script)}'; frame-src {frames}; connect-src {connect}"
    )


def page(
    services: Services,
    basket: Basket,
    store: Store,
    gateway: StripeGateway,
    *,
    return_url: str,
    error: str = "",
    discord_url: str | None = None,
) -> PageResult:
    """The checkout page of a Stripe store: the basket and the Payment Element."""
    from stripe import StripeError

    amount_due = basket.total_price - basket.giftcard_amount
    pay_url = f"{return_url.rsplit('/', 1)[0]}/pay"
    method = NOTHING_TO_PAY  # gift cards cover it all: no card, the pay step completes it
    billing = pages.BillingForm.of(basket, store, f"{pay_url.removesuffix('/pay')}/billing")
    # The tax depends on the buyer's country: no PaymentIntent until it is calculated for it.
    if amount_due != 0 and (billing is None or billing.taxed):
        try:
            intent = create_intent(services, basket, store, gateway)
        except (AmountNotPayable, StripeError) as refused:
            logger.warning("stripe: no PaymentIntent for the checkout: %s", getattr(refused, "code", refused))
            message = "The payment processor cannot take this payment; contact the store."
            return PageResult(422, pages.message_page("Checkout", message, store=store))
        method = payment_method(
            publishable_key=gateway.publishable_key,
            client_secret=intent.client_secret,
            return_url=return_url,
            email=basket.email or "",
            js_url=services.settings.stripe_js_url,
        )
    view = pages.CheckoutView.of(
        basket,
        store,
        services.now(),
        pay_url=pay_url,
        attempt_key=secrets.token_urlsafe(24),
        error=error,
        discord_url=discord_url,
    )
    return PageResult(html=pages.checkout_page(view, payment_method=method))
