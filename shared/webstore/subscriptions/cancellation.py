"""Cancelling a subscription at the end of its paid period, and undoing that: by the player on
the manage page (signed link, form token) and by the operator (DELETE /recurring-payments/{ref}).

The contract with the processor (`webstore.recurring`, docs/subscriptions.md): a cancellation
is `cancel_requested_at` + `cancel_reason` on the recurring payment, set by one conditional
update (still ongoing, none pending); nothing else changes until the period ends, when the
processor ends it as CANCELLED with the expiry commands and `recurring-payment.ended`. Undo
removes the request, conditional on it existing and the period not having ended.

Both answer idempotently: cancelling what is already cancelled (or undoing what is not) changes
nothing and sends nothing again. Each change is one transaction with its event (the update,
conditional also on the subscription being as read, and the outbox item: webstore.repo.outbox).
Event ids derive from the reference and the instant of the change
(`payments.events.recurring_event_key`), so cancel → undo → cancel again sends three events.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from webstore import keys
from webstore.catalog import PackageType, Store
from webstore.errors import Conflict, Forbidden, NotFound
from webstore.event_types import EventType
from webstore.events import DomainEvent
from webstore.html import PageResult
from webstore.payments.events import recurring_event
from webstore.recurring import RecurringPayment
from webstore.repo import start_read
from webstore.repo.baskets import BasketRepository
from webstore.repo.outbox import OutboxRepository
from webstore.repo.payments import PaymentRepository
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.storefront.theme import in_brand_of
from webstore.subscriptions import manage_links as links
from webstore.subscriptions import manage_page as page
from webstore.subscriptions.manage_page import ManageView
from webstore.subscriptions.recurring_view import RecurringPaymentOut, recurring_payment_out
from webstore.subscriptions.renewal_charge import expected_renewal
from webstore.tax.renewal import RenewalCharge

PLAYER_REASON = "Cancelled by the player"
OPERATOR_REASON = "Cancelled by the store"


@dataclass(frozen=True)
class PageForm:
    """What the manage page's form posted, and the request's Origin header."""

    action: str
    form_token: str
    reason: str
    origin: str | None


# --- the use cases both interfaces share ------------------------------------------------------


def _read(services: Services, account_id: int, reference: str) -> RecurringPayment:
    recurring = RecurringPaymentRepository(services.table).get(account_id, reference)
    if recurring is None:
        raise NotFound("Recurring payment not found")
    return recurring


def cancel(services: Services, account_id: int, reference: str, reason: str) -> RecurringPayment:
    """Ask for the subscription to end when its paid period does (idempotent)."""
    now = services.now()
    repository = RecurringPaymentRepository(services.table)
    for _ in range(MAX_ATTEMPTS):
        recurring = _read(services, account_id, reference)
        if not recurring.ongoing:
            raise Conflict("The subscription has already ended", field="reference")
        if recurring.cancel_requested_at is not None:
            return recurring  # requested before (this request's retry, or a concurrent one)
        tx = services.transaction()
        after = repository.add_cancel_request(tx, recurring, now, reason, fails=_Changed())
        OutboxRepository.add(tx, _event(services, after, EventType.RECURRING_CANCELLATION_REQUESTED))
        try:
            tx.commit()
        except _Changed:  # changed meanwhile (a concurrent request, a renewal): read again
            continue
        return after
    raise repository.refusal(account_id, reference, "changed meanwhile; try again")


def abort(services: Services, account_id: int, reference: str) -> RecurringPayment:
    """Take a pending cancellation back before the period ends (idempotent)."""
    now = services.now()
    repository = RecurringPaymentRepository(services.table)
    for _ in range(MAX_ATTEMPTS):
        recurring = _read(services, account_id, reference)
        if not recurring.ongoing:
            raise Conflict("The subscription has already ended", field="reference")
        if recurring.cancel_requested_at is None:
            return recurring
        if recurring.next_payment_at is not None and recurring.next_payment_at <= now:
            raise Conflict("The paid period has ended; the cancellation can no longer be undone")
        tx = services.transaction()
        after = repository.add_cancel_abort(tx, recurring, now, fails=_Changed())
        OutboxRepository.add(tx, _event(services, after, EventType.RECURRING_CANCELLATION_ABORTED))
        try:
            tx.commit()
        except _Changed:
            continue
        return after
    raise repository.refusal(account_id, reference, "changed meanwhile; try again")


MAX_ATTEMPTS = 3


class _Changed(Conflict):
    """The subscription is not as read any more: read it again."""

    def __init__(self) -> None:
        super().__init__("The subscription changed meanwhile; read it again")


def _event(services: Services, recurring: RecurringPayment, event_type: EventType) -> DomainEvent:
    """The event with the recurring-payment subject (its last and first payments read for it)."""
    payments = PaymentRepository(services.table)
    initial_future = (
        start_read(payments.get, recurring.account_id, recurring.initial_payment_id)
        if recurring.initial_payment_id != recurring.last_payment_id
        else None
    )
    last = payments.get(recurring.account_id, recurring.last_payment_id)
    if last is None:
        raise Conflict(f"The last payment of {recurring.reference} is missing")
    initial = initial_future.result() if initial_future else None
    return recurring_event(recurring, event_type, last=last, initial=initial)


# --- the operator interface ---------------------------------------------------------------------


def operator_view(services: Services, account_id: int, reference: str) -> RecurringPaymentOut:
    store_read = start_read(StoreRepository(services.table).store, account_id)
    return _out(services, _read(services, account_id, reference), store_read.result())


def operator_cancel(services: Services, account_id: int, reference: str) -> RecurringPaymentOut:
    store_read = start_read(StoreRepository(services.table).store, account_id)
    recurring = cancel(services, account_id, reference, OPERATOR_REASON)
    return _out(services, recurring, store_read.result())


def _out(services: Services, recurring: RecurringPayment, store: Store) -> RecurringPaymentOut:
    """The operator's view, its amount what the next renewal charges (tax included)."""
    charge = expected_renewal(services, store, recurring)
    return recurring_payment_out(recurring, services.settings.operator_url, charge)


# --- the player's page --------------------------------------------------------------------------


def _view(store_name: str, recurring: RecurringPayment, charge: RenewalCharge | None = None) -> ManageView:
    """`charge`: what the next renewal charges (tax included); None: the agreed price."""
    return ManageView(
        store=store_name,
        packages=[
            line.name if line.quantity == 1 else f"{line.quantity} x {line.name}" for line in recurring.lines
        ],
        amount=charge.amount if charge else recurring.amount,
        currency=recurring.currency,
        period_length=recurring.period_length,
        period_unit=recurring.period_unit,
        status=recurring.status.description,
        ongoing=recurring.ongoing,
        next_payment_at=recurring.next_payment_at,
        cancel_requested_at=recurring.cancel_requested_at,
        ended_at=recurring.cancelled_at,
        action_url=recurring.renewal_action.url if recurring.renewal_action else "",
    )


def show_page(services: Services, token: str) -> PageResult:
    """The page for a genuine link (404 for anything else, having read nothing)."""
    account_id, reference = links.open_token(services.secrets, token)
    store_future = start_read(StoreRepository(services.table).store_and_words, account_id)
    recurring = RecurringPaymentRepository(services.table).get(account_id, reference)
    store, words = store_future.result()
    in_brand_of(store, words)
    if recurring is None:
        raise NotFound(links.NOT_FOUND)
    action = page.UNDO if recurring.cancel_requested_at else page.CANCEL
    form_token = links.form_token(services.secrets, account_id, reference, action, services.now())
    find = f"/subscriptions/find/{store.public_token}"  # the player's other subscriptions (docs/mail.md)
    charge = expected_renewal(services, store, recurring) if recurring.ongoing else None
    return PageResult(
        html=page.manage_page(
            _view(store.name, recurring, charge), form_token, in_brand_of(store), find_url=find
        )
    )


def submit_page(services: Services, token: str, form: PageForm) -> PageResult:
    """Cancel or undo, then back to the page (303). A forged or stale form is 403, a bad link
    404, and neither writes anything."""
    account_id, reference = links.open_token(services.secrets, token)
    # A browser names the page's origin, or "null" (the hosted pages send no referrer): any
    # other origin is another site's form. The form token is what proves the page issued it.
    if form.origin not in (None, "null") and not same_origin(form.origin, services.settings.storefront_url):
        raise Forbidden("The form was sent from another site")
    if form.action not in page.ACTIONS:
        raise Forbidden("Unknown action")
    links.check_form_token(
        services.secrets, account_id, reference, form.action, form.form_token, services.now()
    )
    if form.action == page.CANCEL:
        reason = " ".join(form.reason.split())[: page.MAX_REASON] or PLAYER_REASON
        cancel(services, account_id, reference, reason)
    else:
        abort(services, account_id, reference)
    return PageResult(
        redirect=links.manage_url(services.settings.storefront_url, services.secrets, account_id, reference)
    )


def page_of_basket(services: Services, basket_ident: str) -> PageResult:
    """The receipt's link: a paid basket with a subscription → its manage page (303)."""
    account_id = keys.account_of(basket_ident, "Basket")
    basket = BasketRepository(services.table).get(basket_ident)
    has_subscription = any(line.type is PackageType.SUBSCRIPTION for line in basket.lines)
    if not basket.complete or not basket.transaction_id or not has_subscription:
        raise NotFound("This basket has no subscription")
    url = links.manage_url(
        services.settings.storefront_url, services.secrets, account_id, basket.transaction_id
    )
    return PageResult(redirect=url)


def same_origin(origin: str, storefront_url: str) -> bool:
    mine, theirs = urlsplit(storefront_url), urlsplit(origin)
    return (mine.scheme, mine.netloc.lower()) == (theirs.scheme, theirs.netloc.lower())
