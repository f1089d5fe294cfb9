"""The sandbox's "bank" page: where a player authenticates an off-session renewal charge that
the sandbox declined for authentication (test card 4000 0027 6000 3184), as Stripe's own page
would for a real card. Its POST has the sandbox confirm the charge (`SandboxGateway.authenticate`)
and then completes the renewal through the same use case as Stripe's `payment_intent.succeeded`
(`subscriptions.completion.complete_renewal`), so the whole path runs locally without Stripe.

The link (`/sandbox/authentication/{store token}/{charge key}`) is what the sandbox answered
with the decline; it opens only sandbox stores and renewal charges the sandbox declined for
authentication (the subscription's saved method is the authenticating card). Like the sandbox
itself it moves no money, so it is as open as the sandbox checkout: anyone holding the link can
confirm the charge, and what that buys is the renewal the subscription was due anyway.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from decimal import Decimal
from functools import cache

from webstore import keys
from webstore.catalog import Store
from webstore.checkout.gateway import SANDBOX_SAVED_AUTHENTICATING_CARD, SandboxGateway
from webstore.checkout.gateway_choice import gateway_for_store
from webstore.errors import Forbidden, NotFound
from webstore.html import Page, PageResult
from webstore.html.player import content_security_policy, page
from webstore.recurring import RecurringPayment
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.storefront.theme import brand, in_brand_of
from webstore.subscriptions import planning
from webstore.subscriptions.cancellation import same_origin
from webstore.subscriptions.completion import CompletedCharge, CompletionKind, complete_renewal
from webstore.subscriptions.manage_page import money

TITLE = "Confirm your payment"
NOTHING_TO_CONFIRM = "There is no payment to confirm here"


@cache
def policy() -> str:
    """The route's policy: the form posts to the page itself."""
    return content_security_policy()


def _page(of: Store, template: str, title: str, **context: str) -> Page:
    look = brand(of)
    return Page.with_policy(page(template, brand=look, title=title, **context), look.policy())


@dataclass(frozen=True)
class _Charge:
    store: Store
    gateway: SandboxGateway
    recurring: RecurringPayment
    charge_key: str
    amount: Decimal


def show_page(services: Services, token: str, charge_key: str) -> PageResult:
    """The confirmation form while the charge still waits for the player."""
    charge = _charge(services, token, charge_key)
    action = charge.recurring.renewal_action
    if action is None or action.charge_key != charge_key:
        raise NotFound(NOTHING_TO_CONFIRM)
    html = _page(
        charge.store,
        "hosted/sandbox_authentication.html",
        TITLE,
        store=charge.store.name,
        amount=money(charge.amount, charge.recurring.currency),
        packages=", ".join(line.name for line in charge.recurring.lines),
    )
    return PageResult(html=html)


def submit_page(services: Services, token: str, charge_key: str, origin: str | None) -> PageResult:
    """The player confirmed: the sandbox pays the charge and the renewal is completed once (a
    second confirmation finds it recorded; one after the subscription ended is refunded)."""
    if origin not in (None, "null") and not same_origin(origin, services.settings.storefront_url):
        raise Forbidden("The form was sent from another site")
    charge = _charge(services, token, charge_key)
    paid = charge.gateway.authenticate(charge_key)
    completion = complete_renewal(
        services,
        charge.store.id,
        CompletedCharge(charge_key, paid.reference, charge.amount, charge.recurring.currency),
        charge.gateway,
        services.now(),
    )
    if completion.kind in (CompletionKind.RECORDED, CompletionKind.ALREADY_RECORDED):
        title, message = "Payment confirmed", "Thank you: your subscription is renewed."
    elif completion.kind is CompletionKind.REFUNDED:
        title = "Payment not taken"
        message = f"The payment was not needed ({completion.detail}); it was refunded."
    else:
        raise NotFound(NOTHING_TO_CONFIRM)
    return PageResult(html=_page(charge.store, "hosted/message.html", title, message=message))


def _charge(services: Services, token: str, charge_key: str) -> _Charge:
    """The charge the link names: a renewal charge of a sandbox store's subscription whose saved
    method asks for authentication (NotFound for anything else)."""
    cycle_of = planning.charged_cycle(charge_key)
    if cycle_of is None:
        raise NotFound(NOTHING_TO_CONFIRM)
    reference, cycle = cycle_of
    store, words = StoreRepository(services.table).store_and_words(keys.account_of(token))
    if not hmac.compare_digest(store.public_token, token):
        raise NotFound(NOTHING_TO_CONFIRM)
    in_brand_of(store, words)
    gateway = gateway_for_store(services, store)
    recurring = RecurringPaymentRepository(services.table).get(store.id, reference)
    if (
        not isinstance(gateway, SandboxGateway)
        or recurring is None
        or recurring.saved_method != SANDBOX_SAVED_AUTHENTICATING_CARD
        or cycle > recurring.payment_sequence + 1
    ):
        raise NotFound(NOTHING_TO_CONFIRM)
    action = recurring.renewal_action
    amount = action.amount if action is not None and action.charge_key == charge_key else recurring.amount
    return _Charge(store, gateway, recurring, charge_key, amount)
