"""What a payment starts over time, written in the payment's own transaction: the recurring
payment of its subscription lines with its first schedule item, and the timers of its timed
one-off packages (a running timer is moved, not doubled)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from webstore.recurring import RecurringPayment, ScheduleItem, ScheduleKind
from webstore.repo import Transaction
from webstore.repo.payment_effects import EffectReads
from webstore.repo.payments import PaymentLine, PaymentRecord
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.repo.renewal_notices import add_notice
from webstore.repo.schedule import ScheduleRepository, key_of_sk, schedule_key
from webstore.repo.store import StoreView
from webstore.subscriptions import notices, planning


def timer_slots(lines: list[PaymentLine], view: StoreView) -> tuple[tuple[int, int], ...]:
    """(player, package) of the order's timed packages: the timers fulfilment reads."""
    return tuple((line.username_id, line.package_id) for line, _ in planning.timed_lines(lines, view))


def add_to_payment(
    tx: Transaction,
    payment: PaymentRecord,
    view: StoreView,
    reads: EffectReads,
    tier_ids: Mapping[tuple[int, int], int],
    saved_method: str,
    now: datetime,
) -> RecurringPayment | None:
    """Add the recurring payment (and mark `payment` with its reference) and the timers; the
    recurring payment written, or None."""
    account_id = payment.account_id
    recurring = planning.new_recurring(payment, view, tier_ids, saved_method, now)
    if recurring is not None and recurring.next_payment_at is not None:
        payment.recurring_payment_reference = recurring.reference
        key = schedule_key(ScheduleKind.RENEWAL, account_id, recurring.reference, recurring.next_payment_at)
        recurring.schedule_sk = key.sk
        RecurringPaymentRepository.add_new(tx, recurring)
        ScheduleRepository.add_item(
            tx,
            key,
            ScheduleItem(
                kind=ScheduleKind.RENEWAL,
                account_id=account_id,
                reference=recurring.reference,
                due_at=recurring.next_payment_at,
            ),
        )
        notice_at = notices.first_notice_at(recurring)  # "renews on …" (docs/mail.md)
        if notice_at is not None:
            add_notice(tx, account_id, recurring.reference, notice_at)
    for line, package in planning.timed_lines(payment.lines, view):
        previous = reads.timers.get((line.username_id, line.package_id))
        timer = planning.timer_after(previous, line, package, payment, now)
        key = schedule_key(ScheduleKind.EXPIRY, account_id, timer.reference, timer.expires_at)
        timer.schedule_sk = key.sk
        if previous is not None and previous.schedule_sk:  # the one timer moves
            ScheduleRepository.add_done(tx, key_of_sk(account_id, previous.reference, previous.schedule_sk))
        RecurringPaymentRepository.add_timer(tx, timer, previous)
        ScheduleRepository.add_item(
            tx,
            key,
            ScheduleItem(
                kind=ScheduleKind.EXPIRY,
                account_id=account_id,
                reference=timer.reference,
                due_at=timer.expires_at,
            ),
        )
    return recurring
