"""The panel's subscriptions: the store's recurring payments newest first (paged), one of
them, and cancelling it at the end of its paid period (or taking that back) through the same
use cases as the operator interface and the player's manage page
(webstore.subscriptions.cancellation)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from webstore import keys
from webstore.errors import Invalid, NotFound
from webstore.recurring import RecurringPayment
from webstore.repo.audit_log import AuditLog
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.services import Services
from webstore.subscriptions import cancellation

PER_PAGE = 25
MAX_REASON = 500


@dataclass(frozen=True)
class SubscriptionPage:
    subscriptions: list[RecurringPayment]
    next_below: int | None  # the first payment id the next page continues below


def _reference(reference: str) -> str:
    """A reference is the first payment's transaction id: anything else names nothing (404)."""
    try:
        keys.payment_id_of(reference)
    except NotFound as error:
        raise NotFound("Recurring payment not found") from error
    return reference


def subscriptions_page(services: Services, account_id: int, below: str | None = None) -> SubscriptionPage:
    """Newest first (by their first payment), PER_PAGE a page: one GSI2 Query."""
    below_id = None
    if below:
        if not (below.isascii() and below.isdigit()) or not 1 <= int(below) <= keys.INT32_MAX:
            raise Invalid("below must be a payment id", field="below")
        below_id = int(below)
    found, more = RecurringPaymentRepository(services.table).newest(account_id, below_id, PER_PAGE)
    return SubscriptionPage(found, more)


def subscription(services: Services, account_id: int, reference: str) -> RecurringPayment:
    """One recurring payment of this store by its reference (its first transaction id): 404
    otherwise, also for a reference of another store's."""
    found = RecurringPaymentRepository(services.table).get(account_id, _reference(reference))
    if found is None:
        raise NotFound("Recurring payment not found")
    return found


def _audit(
    services: Services, account_id: int, by: str, action: str, recurring: RecurringPayment, now: datetime
) -> None:
    summary = f"{recurring.reference} ({recurring.username})"
    AuditLog(services.table).record(account_id, by, action, summary, now)


def cancel_at_period_end(
    services: Services, account_id: int, reference: str, reason: str, by: str, now: datetime
) -> RecurringPayment:
    """The subscription ends when its paid period does (idempotent; the processor ends it then,
    with its expiry commands and `recurring-payment.ended`)."""
    _reference(reference)
    reason = " ".join(reason.split())
    if len(reason) > MAX_REASON:
        raise Invalid(f"reason is at most {MAX_REASON} characters", field="reason")
    recurring = cancellation.cancel(services, account_id, reference, reason or cancellation.OPERATOR_REASON)
    _audit(services, account_id, by, "subscription.cancel", recurring, now)
    return recurring


def undo_cancel(
    services: Services, account_id: int, reference: str, by: str, now: datetime
) -> RecurringPayment:
    """Take a pending cancellation back while the paid period runs (idempotent)."""
    _reference(reference)
    recurring = cancellation.abort(services, account_id, reference)
    _audit(services, account_id, by, "subscription.keep", recurring, now)
    return recurring
