"""When a subscription's "renews on …" notice item acts (webstore.subscriptions.notices)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from webstore.recurring import RecurringPayment, RecurringStatus
from webstore.subscriptions.notices import (
    AFTER_RENEWAL,
    LOOK_AGAIN,
    MAX_NOTICE_DAYS,
    NoticeStep,
    Step,
    first_notice_at,
    next_step,
)

RENEWAL = datetime(2026, 7, 1, 12, tzinfo=UTC)


def subscription(**fields: Any) -> RecurringPayment:
    values: dict[str, Any] = {
        "reference": "tbx-1-ab",
        "account_id": 1,
        "username_id": 1,
        "username": "Notch",
        "email": "steve@example.com",
        "lines": [],
        "amount": Decimal("4.99"),
        "currency": "USD",
        "period_length": 1,
        "period_unit": "month",
        "created_at": RENEWAL - timedelta(days=30),
        "updated_at": RENEWAL - timedelta(days=30),
        "next_payment_at": RENEWAL,
        "last_payment_id": 1,
        "initial_payment_id": 1,
        **fields,
    }
    return RecurringPayment(**values)


def test_the_notice_is_sent_within_the_stores_days_and_the_item_moves_past_the_renewal() -> None:
    monthly = subscription()
    assert next_step(monthly, 3, RENEWAL - timedelta(days=10)) == NoticeStep(
        Step.WAIT, RENEWAL - timedelta(days=3)
    )
    assert next_step(monthly, 3, RENEWAL - timedelta(days=3)) == NoticeStep(
        Step.SEND, RENEWAL + AFTER_RENEWAL
    )
    assert next_step(monthly, 3, RENEWAL - timedelta(seconds=1)).step is Step.SEND


def test_no_notice_for_periods_under_a_week_or_an_ended_subscription() -> None:
    for short in (
        subscription(period_length=6, period_unit="day"),
        subscription(period_length=1, period_unit="day"),
    ):
        assert first_notice_at(short) is None
        assert next_step(short, 3, RENEWAL - timedelta(days=1)) == NoticeStep(Step.DROP)
    weekly = subscription(period_length=7, period_unit="day")
    assert first_notice_at(weekly) == RENEWAL - timedelta(days=MAX_NOTICE_DAYS)
    assert next_step(weekly, 3, RENEWAL - timedelta(days=1)).step is Step.SEND
    assert next_step(None, 3, RENEWAL).step is Step.DROP
    ended = subscription(status=RecurringStatus.CANCELLED, cancelled_at=RENEWAL)
    assert next_step(ended, 3, RENEWAL - timedelta(days=1)).step is Step.DROP


def test_a_cancellation_requested_or_a_renewal_overdue_waits_instead() -> None:
    leaving = subscription(cancel_requested_at=RENEWAL - timedelta(days=5))
    assert next_step(leaving, 3, RENEWAL - timedelta(days=1)) == NoticeStep(
        Step.WAIT, RENEWAL + AFTER_RENEWAL
    )
    now = RENEWAL + timedelta(hours=2)  # the renewal is due and not processed yet
    assert next_step(subscription(), 3, now) == NoticeStep(Step.WAIT, now + LOOK_AGAIN)
    retried = subscription(status=RecurringStatus.PAST_DUE, fail_count=1)
    assert next_step(retried, 3, RENEWAL - timedelta(days=1)).step is Step.WAIT
