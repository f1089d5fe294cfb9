"""Our page where a player completes, on-session, a Stripe renewal charge their bank wanted them
to authenticate (`authentication_required` off-session): Stripe.js confirms the declined
PaymentIntent with the saved card (`confirmCardPayment`, the bank's check included), and the
renewal is recorded when Stripe reports the payment (`payment_intent.succeeded`, metadata
`off_session_charge` → `subscriptions.completion.complete_renewal`), once.

The link (`/renewal-payments/{store token}/{charge key}`) is what the adapter answered with the
decline and what the subscription keeps as its `renewal_action`; the page opens only that
pending action, of a Stripe store. Nothing here takes money on its own: the PaymentIntent was
made by the renewal for the renewal's amount; the player's bank and Stripe decide.
"""

from __future__ import annotations

import hmac

from webstore import keys
from webstore.checkout.gateway_choice import stripe_of
from webstore.checkout.stripe_page import stripe_directives
from webstore.errors import NotFound
from webstore.html import PageResult
from webstore.html.player import page
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.storefront.theme import in_brand_of
from webstore.subscriptions import planning
from webstore.subscriptions.manage_page import money

TITLE = "Confirm your renewal payment"
NOTHING_TO_CONFIRM = "There is no payment to confirm here (it may be confirmed already)"
_OPEN = frozenset({"requires_payment_method", "requires_confirmation", "requires_action"})

SCRIPT = "hosted/stripe_authentication.js"  # the one inline script (a template asset), allowed by its hash


def show_page(services: Services, token: str, charge_key: str) -> PageResult:
    """The page for the subscription's pending action (NotFound for anything else)."""
    cycle_of = planning.charged_cycle(charge_key)
    if cycle_of is None:
        raise NotFound(NOTHING_TO_CONFIRM)
    store, words = StoreRepository(services.table).store_and_words(keys.account_of(token))
    gateway = stripe_of(services, store)
    if gateway is None or not hmac.compare_digest(store.public_token, token):
        raise NotFound(NOTHING_TO_CONFIRM)
    look = in_brand_of(store, words)
    recurring = RecurringPaymentRepository(services.table).get(store.id, cycle_of[0])
    action = recurring.renewal_action if recurring is not None and recurring.ongoing else None
    if recurring is None or action is None or action.charge_key != charge_key:
        raise NotFound(NOTHING_TO_CONFIRM)
    intent = gateway.intent(action.reference)
    if intent.status not in _OPEN:
        raise NotFound(NOTHING_TO_CONFIRM)  # paid (its webhook records it) or cancelled
    method = recurring.saved_method.partition("/")[2]
    js_url = services.settings.stripe_js_url
    html = page(
        "hosted/stripe_authentication.html",
        brand=look,
        title=TITLE,
        amount=money(action.amount, recurring.currency),
        store=store.name,
        packages=", ".join(line.name for line in recurring.lines),
        publishable_key=gateway.publishable_key,
        client_secret=intent.client_secret,
        payment_method=method,
        js_url=js_url,
    )
    policy = f"{look.policy()}; {stripe_directives(js_url, SCRIPT)}"
    return PageResult(html=html, csp=policy)
