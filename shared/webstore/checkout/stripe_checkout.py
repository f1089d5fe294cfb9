"""Settling a Stripe checkout: on the player's return from Stripe (after the Payment Element or a
3-D Secure redirect) or on the `payment_intent.succeeded` webhook, whichever comes first.

Both run the checkout's one paying sequence (`checkout.pay`) with the PaymentIntent's id as
the attempt key (the return makes the sequence's first read itself, once, and hands it on): it
claims the basket, asks the gateway (which reads the PaymentIntent from Stripe: paid, for
exactly this basket and amount), and records the payment and completes the basket in one
transaction. The second to arrive finds the order recorded under the same key: it finishes
what the first may have left (pending command chunks; the event again, same id) and shows the
receipt. A PaymentIntent that paid a basket another payment already paid, or a basket that no
longer exists, is refunded.
"""

from __future__ import annotations

import logging
import re

from webstore.checkout import checkout, pages, stripe_page
from webstore.checkout.gateway_choice import stripe_of
from webstore.checkout.stripe_gateway import StripeGateway, StripeIntent
from webstore.errors import Invalid, NotFound
from webstore.html import PageResult
from webstore.services import Services
from webstore.storefront.theme import in_brand_of

logger = logging.getLogger(__name__)

INTENT_ID = re.compile(r"^pi_[A-Za-z0-9]{8,64}$")


def returned(services: Services, ident: str, intent_id: str) -> PageResult:
    """GET …/return?payment_intent=pi_…: settle a paid intent, or say what became of it."""
    if not INTENT_ID.match(intent_id or ""):
        raise Invalid("payment_intent is missing or malformed", field="payment_intent")
    # Everything the pay sequence reads first, read once for both (the intent id is its key).
    first = checkout.read_for_pay(services, ident, intent_id)
    loaded = first.loaded
    in_brand_of(loaded.store, loaded.words)
    gateway = stripe_of(services, loaded.store)
    if gateway is None:
        raise NotFound("This store does not take Stripe payments")
    intent = _known_intent(gateway, intent_id)
    if intent.metadata.get("basket_ident") != ident:
        raise Invalid("This payment belongs to another basket", field="payment_intent")
    if intent.status == "succeeded":
        return settle_intent(services, ident, intent, gateway, first=first)
    if intent.status in ("processing", "requires_capture"):
        return PageResult(
            202,
            pages.message_page(
                "Payment processing",
                "Your bank is still processing the payment. Your order is completed as soon as it "
                "confirms; you can close this page.",
                store=loaded.store,
            ),
        )
    if loaded.basket.complete:
        return PageResult(redirect=checkout.receipt_url(services, ident))
    # Not paid (declined, authentication failed, cancelled): a fresh page to try again.
    reason = intent.error or "The payment did not go through."
    checkout.reprice(loaded.basket, loaded.store, services.now())
    result = stripe_page.page(
        services,
        loaded.basket,
        loaded.store,
        gateway,
        return_url=checkout.return_url(services, ident),
        error=f"{reason} Try again or use another payment method.",
    )
    return PageResult(402, result.html, csp=result.csp) if result.status == 200 else result


def _known_intent(gateway: StripeGateway, intent_id: str) -> StripeIntent:
    from stripe import InvalidRequestError

    try:
        return gateway.intent(intent_id)
    except InvalidRequestError as error:  # not a PaymentIntent of this store's account
        raise Invalid("payment_intent is not a payment of this store", field="payment_intent") from error


def settle_intent(
    services: Services,
    ident: str,
    intent: StripeIntent,
    gateway: StripeGateway,
    *,
    first: checkout.PayRead | None = None,
) -> PageResult:
    """Fulfil the basket a succeeded PaymentIntent paid, exactly once (idempotent). `first`: the
    pay sequence's first read under this intent's id, when the caller made it already."""
    try:
        first = first or checkout.read_for_pay(services, ident, intent.id)
    except NotFound:  # the basket expired before the payment was settled: nothing to fulfil
        refunded = gateway.refund_attempt(intent.id)
        logger.warning("stripe: a paid PaymentIntent names no basket; refunded=%s", refunded)
        return PageResult(
            410, pages.message_page("Checkout", "This basket no longer exists; your payment was refunded.")
        )
    loaded = first.loaded
    if loaded.order is not None and loaded.order.checkout_attempt != intent.id:
        # Paid already by another attempt (a second tab): this second payment goes back.
        refunded = gateway.refund_attempt(intent.id)
        outcome = "it was refunded" if refunded else "contact the store for a refund"
        return PageResult(
            409,
            pages.message_page(
                "Checkout",
                f"This basket was already paid; your second payment: {outcome}.",
                store=loaded.store,
            ),
        )
    # A subscription basket's intent was created to save the card, and the page that confirmed
    # it could not be submitted without the recurring-charge box (required): consent given.
    consent = intent.setup_future_usage == "off_session"
    return checkout.pay(services, ident, intent.id, "", consent=consent, first=first)
