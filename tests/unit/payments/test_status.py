"""The payment status type: wire ids, descriptions, events, allowed transitions."""

from __future__ import annotations

import pytest

from webstore.catalog import CommandTrigger
from webstore.domain.payment_status import PaymentStatus, transition
from webstore.errors import Conflict, Invalid
from webstore.event_types import EventType
from webstore.players import TIER_STATUSES, TierStatus
from webstore.recurring import RecurringStatus


def test_wire_ids_and_descriptions_are_compat_md() -> None:
    assert [(s.id, s.description) for s in PaymentStatus] == [
        (1, "Complete"),
        (2, "Refund"),
        (3, "Chargeback"),
        (18, "Declined"),
    ]
    assert PaymentStatus.stored() == (PaymentStatus.COMPLETE, PaymentStatus.REFUND, PaymentStatus.CHARGEBACK)


def test_each_status_publishes_its_event_and_ends_or_starts_subscriptions() -> None:
    assert PaymentStatus.COMPLETE.event_type == "payment.completed"
    assert PaymentStatus.DECLINED.event_type is EventType.PAYMENT_DECLINED
    assert PaymentStatus.COMPLETE.recurring_event is EventType.RECURRING_STARTED
    assert (
        PaymentStatus.REFUND.recurring_event
        is PaymentStatus.CHARGEBACK.recurring_event
        is EventType.RECURRING_ENDED
    )
    assert PaymentStatus.DECLINED.recurring_event is None


@pytest.mark.parametrize(
    ("current", "new", "trigger", "event"),
    [
        ("complete", "refund", CommandTrigger.REFUND, "payment.refunded"),
        ("complete", "chargeback", CommandTrigger.CHARGEBACK, "payment.dispute.opened"),
        ("chargeback", "complete", None, "payment.dispute.won"),
    ],
)
def test_allowed_transitions(current: str, new: str, trigger: CommandTrigger | None, event: str) -> None:
    change = transition(PaymentStatus(current), PaymentStatus(new))
    assert (change.trigger, change.event) == (trigger, event)


@pytest.mark.parametrize(
    ("current", "new"), [("refund", "complete"), ("refund", "chargeback"), ("chargeback", "refund")]
)
def test_refused_transitions_name_the_status(current: str, new: str) -> None:
    with pytest.raises(Conflict) as refused:
        transition(PaymentStatus(current), PaymentStatus(new))
    assert refused.value.field == "status"


def test_only_stored_statuses_may_be_set() -> None:
    assert PaymentStatus.parse_stored("refund") is PaymentStatus.REFUND
    for value in ("declined", "Complete", ""):
        with pytest.raises(Invalid):
            PaymentStatus.parse_stored(value)


def test_recurring_and_tier_statuses() -> None:
    assert [(s.value, s.description) for s in RecurringStatus] == [
        (1, "Active"),
        (2, "Past due"),
        (3, "Cancelled"),
        (4, "Expired"),
    ]
    assert [s for s in RecurringStatus if s.ongoing] == [RecurringStatus.ACTIVE, RecurringStatus.PAST_DUE]
    assert TIER_STATUSES == {1: "active", 2: "pending downgrade", 3: "cancelled", 4: "expired"}
    assert [s for s in TierStatus if s.ongoing] == [TierStatus.ACTIVE, TierStatus.PENDING_DOWNGRADE]
