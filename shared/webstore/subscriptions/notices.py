""" "Your subscription renews on …": the notice item each subscription of a week or longer keeps
(webstore.repo.renewal_notices), and what the clock does when it comes due (docs/mail.md).

A new subscription's item is put in its first payment's transaction (fulfilment), due
`MAX_NOTICE_DAYS` before its first renewal. From then on the item moves itself: each time it
comes due, the clock reads the subscription and the store's `renewal_notice_days` (N) and

- the subscription ended, or renews more often than weekly: the item goes;
- N days before the renewal is still ahead: the item moves there;
- within N days of a renewal of an active subscription with no cancellation requested: the
  notice's event (`recurring-payment.renewal-upcoming`, for no webhook endpoint: e-mail only)
  is written, and the item moves just past the renewal date — both in one transaction under the
  item's claim, so one renewal gets one notice however many clock runs overlap;
- otherwise (a cancellation requested, a declined renewal being retried, the renewal date
  passed and not yet processed): the item looks again later.

The event's id is derived from (subscription, cycle), so even a replayed notice is one e-mail
(the mail claim of (event, kind)).

The notice states what the renewal will charge (the subject's `renewal_charge`, our extension:
amount with tax, the tax in it): priced as the renewal prices it (webstore.subscriptions.
renewal_tax) at today's rates, for a Stripe Tax store with one Stripe Tax calculation; when Stripe
cannot be reached, at the rates of the subscription's last charge (docs/tax.md, "Renewals").
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum

from webstore.calendar import add_periods
from webstore.event_types import RENEWAL_UPCOMING
from webstore.events import DomainEvent
from webstore.payments.events import event_id, recurring_subject
from webstore.recurring import SCHEDULE_SHARDS, RecurringPayment, RecurringStatus
from webstore.repo import Table, Transaction
from webstore.repo.mail import MailRepository
from webstore.repo.outbox import OutboxRepository
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.repo.renewal_notices import add_notice, due_notices, notice_key, noticed
from webstore.repo.schedule import DueItem, ScheduleRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.subscriptions.renewal_charge import expected_renewal
from webstore.subscriptions.renewal_tax import price_renewal
from webstore.tax.renewal import RenewalCharge

logger = logging.getLogger(__name__)

MAX_NOTICE_DAYS = 30  # the setting's upper bound (MailSettings.renewal_notice_days)
MIN_PERIOD = timedelta(days=7)  # shorter periods get no notice
AFTER_RENEWAL = timedelta(hours=1)  # when the item looks again, past the renewal date
LOOK_AGAIN = timedelta(days=1)  # a renewal overdue or being retried: look again a day later
CLAIM = timedelta(minutes=5)


class Step(StrEnum):
    DROP = "drop"  # the subscription ended or renews weekly or more often
    WAIT = "wait"  # nothing to say yet: the item moves to `at`
    SEND = "send"  # the notice now; the item moves to `at`


@dataclass(frozen=True)
class NoticeStep:
    step: Step
    at: datetime | None = None


def first_notice_at(recurring: RecurringPayment) -> datetime | None:
    """When a new subscription's item is first due (None: its period is under a week)."""
    if recurring.next_payment_at is None or not long_enough(recurring):
        return None
    return recurring.next_payment_at - timedelta(days=MAX_NOTICE_DAYS)


def long_enough(recurring: RecurringPayment) -> bool:
    start = recurring.next_payment_at or recurring.created_at
    return add_periods(start, recurring.period_length, recurring.period_unit) - start >= MIN_PERIOD


def next_step(recurring: RecurringPayment | None, days: int, now: datetime) -> NoticeStep:
    """What the item does at `now` for `recurring` and a store that gives `days` days' notice."""
    if recurring is None or not recurring.ongoing or recurring.next_payment_at is None:
        return NoticeStep(Step.DROP)
    if not long_enough(recurring):
        return NoticeStep(Step.DROP)
    renewal = recurring.next_payment_at
    if now >= renewal or recurring.status is not RecurringStatus.ACTIVE:
        return NoticeStep(Step.WAIT, max(now, renewal) + LOOK_AGAIN)
    if recurring.cancel_requested_at is not None:
        return NoticeStep(Step.WAIT, renewal + AFTER_RENEWAL)
    notice_at = renewal - timedelta(days=days)
    if now < notice_at:
        return NoticeStep(Step.WAIT, notice_at)
    return NoticeStep(Step.SEND, renewal + AFTER_RENEWAL)


def cycle_of(recurring: RecurringPayment) -> int:
    """The renewal a notice announces: the payment the subscription makes next."""
    return recurring.payment_sequence + 1


@dataclass
class NoticeReport:
    sent: list[str] = field(default_factory=list)  # references noticed
    failed: list[str] = field(default_factory=list)


def run_due_notices(
    services: Services, now: datetime, shards: list[int] | None = None, report: NoticeReport | None = None
) -> NoticeReport:
    """Every notice item due at or before `now` (in `shards`), each once."""
    report = report or NoticeReport()
    claim = uuid.uuid4().hex
    settings: dict[int, int] = {}
    for shard in range(SCHEDULE_SHARDS) if shards is None else shards:
        for due in due_notices(services.table, shard, now):
            try:
                if _process(services, due, now, claim, settings):
                    report.sent.append(due.item.reference)
            except Exception:  # one item's failure never stops the run; it is released and retried
                logger.exception("renewal notice %s failed", due.key.sk)
                ScheduleRepository(services.table).release(due.key, claim)
                report.failed.append(due.item.reference)
    return report


def _process(services: Services, due: DueItem, now: datetime, claim: str, settings: dict[int, int]) -> bool:
    """One item: claim, decide, move (and write the notice's event); whether a notice was written."""
    schedule = ScheduleRepository(services.table)
    real_now = services.now()
    if schedule.claim(due.key, claim, real_now + CLAIM, real_now) is None:
        return False  # another run holds it
    item = due.item
    a = item.account_id
    recurring = RecurringPaymentRepository(services.table).get(a, item.reference)
    if a not in settings:
        settings[a] = MailRepository(services.table).settings(a).renewal_notice_days
    step = next_step(recurring, settings[a], now)
    if step.at is not None and notice_key(a, item.reference, step.at) == due.key:
        schedule.release(due.key, claim)  # it stays where it is
        return False
    tx = Transaction(services.table)
    ScheduleRepository.add_done(tx, due.key, claim)
    if step.at is not None:
        add_notice(tx, a, item.reference, step.at)
    sent = step.step is Step.SEND and recurring is not None and bool(recurring.email)
    if sent and recurring is not None:
        OutboxRepository.add(tx, notice_event(services, recurring, now))
    tx.commit()
    return sent


def notice_event(services: Services, recurring: RecurringPayment, now: datetime) -> DomainEvent:
    """The notice's event: the subscription's subject as the other `recurring-payment.*` events
    carry it, for no webhook endpoint (`endpoints=()`), its id from (subscription, cycle)."""
    payments = PaymentRepository(services.table)
    last = payments.get(recurring.account_id, recurring.last_payment_id, consistent=True)
    if last is None:
        raise LookupError(f"The last payment of {recurring.reference} is missing")
    initial = None
    if recurring.initial_payment_id != last.id:
        initial = payments.get(recurring.account_id, recurring.initial_payment_id)
    reference = f"{recurring.reference}:notice:{cycle_of(recurring)}"
    subject = recurring_subject(recurring, last=last, initial=initial)
    charge = renewal_charge(services, recurring, initial or last)
    subject["renewal_charge"] = {
        "amount": float(charge.amount),
        "tax": float(charge.tax),
        "currency": recurring.currency,
    }
    return DomainEvent(
        type=RENEWAL_UPCOMING,
        account_id=recurring.account_id,
        subject=subject,
        id=event_id(recurring.account_id, reference, RENEWAL_UPCOMING),
        date=now.isoformat(timespec="seconds"),
        endpoints=(),
    )


def renewal_charge(services: Services, recurring: RecurringPayment, first: PaymentRecord) -> RenewalCharge:
    """What the coming renewal charges, priced as the renewal prices it at today's rates (a Stripe
    Tax store: one calculation); Stripe out of reach: at the rates of the last charge."""
    store = StoreRepository(services.table).store(recurring.account_id)
    try:
        price = price_renewal(services, store, recurring, recurring.lines, first)
    except Exception as error:  # the notice still goes, with the last charge's rates
        logger.warning("renewal notice %s: no tax calculation: %s", recurring.reference, error)
        return expected_renewal(services, store, recurring)
    return RenewalCharge(price.amount, price.tax.tax if price.tax else Decimal(0))


def backfill_notices(table: Table, account_id: int, now: datetime, page: int = 100) -> int:
    """Give the account's ongoing subscriptions of a week or longer that have no notice item
    (started before notices existed) theirs, due when a new one's would be or now if that has
    passed (the clock then decides, as for any item); how many. A subscription that has an item
    is left alone, so a second run adds nothing (scripts/backfill_renewal_notices.py)."""
    have = noticed(table, account_id)
    subscriptions = RecurringPaymentRepository(table)
    added = 0
    below: int | None = None
    while True:
        found, below = subscriptions.newest(account_id, below, page)
        for recurring in found:
            due = first_notice_at(recurring)
            if recurring.reference in have or not recurring.ongoing or due is None:
                continue
            tx = Transaction(table)
            add_notice(tx, account_id, recurring.reference, max(due, now))
            tx.commit()
            have.add(recurring.reference)
            added += 1
        if below is None:
            return added
