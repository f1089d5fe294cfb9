"""The subscription records and the schedule: each repository method and its conditions (moto)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from webstore.db import Table, Transaction
from webstore.errors import Conflict, NotFound
from webstore.recurring import (
    SCHEDULE_SHARDS,
    RecurringLine,
    RecurringPayment,
    RecurringStatus,
    ScheduleItem,
    ScheduleKind,
)
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.repo.schedule import ScheduleRepository, schedule_key

A = 7
NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


def recurring(reference: str = "tbx-1-aaaaaaaa", **changes: object) -> RecurringPayment:
    base = RecurringPayment(
        reference=reference,
        account_id=A,
        username_id=5,
        username="Steve",
        lines=[
            RecurringLine(
                package_id=1, category_id=1, name="VIP", price=Decimal(5), username_id=5, username="Steve"
            )
        ],
        amount=Decimal(5),
        currency="USD",
        period_length=1,
        period_unit="month",
        created_at=NOW,
        updated_at=NOW,
        next_payment_at=NOW + timedelta(days=31),
        last_payment_id=1,
        initial_payment_id=1,
    )
    return base.model_copy(update=changes)


def written(table: Table, record: RecurringPayment) -> RecurringPaymentRepository:
    tx = Transaction(table)
    RecurringPaymentRepository.add_new(tx, record)
    tx.commit()
    return RecurringPaymentRepository(table)


def test_a_recurring_payment_round_trips_and_is_written_once(table: Table) -> None:
    repo = written(table, recurring())
    assert repo.get(A, "tbx-1-aaaaaaaa") == recurring()
    assert repo.get(A, "tbx-2-bbbbbbbb") is None
    with pytest.raises(Conflict):
        written(table, recurring())


def test_cancel_request_then_abort_then_request_again(table: Table) -> None:
    repo = written(table, recurring())
    requested = repo.request_cancel(A, "tbx-1-aaaaaaaa", NOW, "player")
    assert requested.cancel_requested_at == NOW and requested.cancel_reason == "player"
    with pytest.raises(Conflict, match="already has a cancellation pending"):
        repo.request_cancel(A, "tbx-1-aaaaaaaa", NOW, "player")
    aborted = repo.abort_cancel(A, "tbx-1-aaaaaaaa", NOW + timedelta(days=1))
    assert aborted.cancel_requested_at is None and aborted.cancel_reason is None
    with pytest.raises(Conflict, match="no cancellation pending"):
        repo.abort_cancel(A, "tbx-1-aaaaaaaa", NOW)
    assert repo.request_cancel(A, "tbx-1-aaaaaaaa", NOW, "operator").cancel_reason == "operator"
    with pytest.raises(NotFound):
        repo.request_cancel(A, "tbx-9-cccccccc", NOW, "player")


def test_abort_is_refused_once_the_period_has_ended(table: Table) -> None:
    repo = written(table, recurring())
    repo.request_cancel(A, "tbx-1-aaaaaaaa", NOW, "player")
    with pytest.raises(Conflict):
        repo.abort_cancel(A, "tbx-1-aaaaaaaa", NOW + timedelta(days=32))


def test_an_ended_recurring_payment_cannot_be_cancelled(table: Table) -> None:
    repo = written(table, recurring(status=RecurringStatus.EXPIRED))
    with pytest.raises(Conflict, match="has ended"):
        repo.request_cancel(A, "tbx-1-aaaaaaaa", NOW, "player")


def test_a_change_applies_once_per_read_and_keeps_a_concurrent_cancel_request(table: Table) -> None:
    before = recurring()
    repo = written(table, before)
    repo.request_cancel(A, before.reference, NOW, "player")
    after = before.model_copy(update={"payment_sequence": 2, "last_payment_id": 2})
    tx = Transaction(table)
    RecurringPaymentRepository.add_change(tx, before, after, fails=Conflict("changed"))
    tx.commit()
    stored = repo.get(A, before.reference)
    assert stored is not None and stored.payment_sequence == 2 and stored.cancel_reason == "player"
    again = Transaction(table)
    RecurringPaymentRepository.add_change(again, before, after, fails=Conflict("changed"))
    with pytest.raises(Conflict, match="changed"):
        again.commit()
    ending = Transaction(table)
    RecurringPaymentRepository.add_change(
        ending, after, after, cancel_requested=False, fails=Conflict("cancel pending")
    )
    with pytest.raises(Conflict, match="cancel pending"):
        ending.commit()


def test_due_items_are_read_by_shard_up_to_now_and_claimed_once(table: Table) -> None:
    schedule = ScheduleRepository(table)
    tx = Transaction(table)
    for index in range(12):
        due = NOW + timedelta(hours=index - 6)
        item = ScheduleItem(kind=ScheduleKind.RENEWAL, account_id=A, reference=f"r{index}", due_at=due)
        ScheduleRepository.add_item(tx, schedule_key(ScheduleKind.RENEWAL, A, f"r{index}", due), item)
    tx.commit()
    due_now = [d for shard in range(SCHEDULE_SHARDS) for d in schedule.due(shard, NOW)[0]]
    assert sorted(d.item.reference for d in due_now) == sorted(f"r{i}" for i in range(7))
    assert schedule.backlog(NOW).count == 7
    assert schedule.backlog(NOW).oldest_due == NOW - timedelta(hours=6)

    first = due_now[0].key
    assert schedule.claim(first, "run-1", NOW + timedelta(minutes=5), NOW) is not None
    assert schedule.claim(first, "run-2", NOW + timedelta(minutes=5), NOW) is None  # held
    taken_over = schedule.claim(first, "run-2", NOW + timedelta(minutes=11), NOW + timedelta(minutes=6))
    assert taken_over is not None and taken_over.attempts == 2  # the first claim expired
    done = Transaction(table)
    ScheduleRepository.add_done(done, first, "run-1")  # the expired claim may not finish it
    with pytest.raises(Conflict):
        done.commit()
    finish = Transaction(table)
    ScheduleRepository.add_done(finish, first, "run-2")
    finish.commit()
    assert schedule.get(first) is None
