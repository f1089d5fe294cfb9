"""The events a payment writes: types, subjects, derived ids."""

from __future__ import annotations

from decimal import Decimal

from tests.unit.payments.support import NOW, RECIPIENTS, STEVE, demo_view, order
from webstore.domain.payment_status import PaymentStatus
from webstore.event_types import EventType
from webstore.payments import planning
from webstore.payments.events import status_events
from webstore.payments.order import OrderLine
from webstore.recurring import RecurringPayment, RecurringStatus
from webstore.repo.payments import PaymentRecord
from webstore.subscriptions import planning as planning_sub
from webstore.subscriptions.planning import new_recurring


def subscription_payment() -> PaymentRecord:
    the_order = order(
        OrderLine(package_id=1, paid_price=Decimal("4.99")),
        OrderLine(package_id=10, paid_price=Decimal("2.50")),
    )
    lines = planning.payment_lines(the_order, demo_view(), STEVE, RECIPIENTS)
    return planning.new_payment(the_order, "USD", STEVE, lines, [], 1, NOW)


def started_by(payment: PaymentRecord) -> RecurringPayment:
    recurring = new_recurring(payment, demo_view(), {}, "card", NOW)
    assert recurring is not None
    return recurring


def test_a_completed_subscription_payment_starts_its_recurring_payment() -> None:
    payment = subscription_payment()
    payment.recurring_payment_reference = payment.transaction_id
    recurring = started_by(payment)
    events = status_events(payment, recurring=recurring)
    completed, started = events
    assert (completed.type, started.type) == (EventType.PAYMENT_COMPLETED, EventType.RECURRING_STARTED)
    assert completed.subject["status"] == {"id": 1, "description": "Complete"}
    assert completed.subject["transaction_id"] == payment.transaction_id
    assert completed.subject["recurring_payment_reference"] == payment.transaction_id
    assert completed.subject["payment_sequence"] == "mixed"  # a subscription and a one-off line
    assert started.subject["reference"] == payment.transaction_id
    assert started.subject["product"] == {"id": 1, "name": "VIP"}  # the subscription line only
    assert started.subject["status"] == {"id": 1, "description": "Active"}
    assert started.subject["next_payment_at"] == "2026-04-15T12:00:00+00:00"
    again = status_events(payment, recurring=recurring)
    assert [e.id for e in again] == [e.id for e in events]  # receivers dedupe


def test_a_one_off_payment_has_no_recurring_event() -> None:
    payment = subscription_payment()
    events = status_events(payment)  # no recurring payment given: nothing about one
    assert [e.type for e in events] == ["payment.completed"]
    assert events[0].subject["payment_sequence"] == "oneoff"


def test_a_refund_ends_it_and_a_won_dispute_has_no_recurring_event() -> None:
    refunded = subscription_payment().model_copy(update={"status": PaymentStatus.REFUND})
    refunded.recurring_payment_reference = refunded.transaction_id
    ended_rp = planning_sub.ended(started_by(refunded), RecurringStatus.CANCELLED, "refund", NOW)
    events = status_events(refunded, recurring=ended_rp)
    assert [e.type for e in events] == ["payment.refunded", "recurring-payment.ended"]
    ended = events[1].subject
    assert (ended["status"], ended["cancel_reason"]) == ({"id": 3, "description": "Cancelled"}, "refund")
    assert ended["next_payment_at"] is None and ended["cancelled_at"] == NOW.isoformat()
    won = subscription_payment()  # complete again after a chargeback
    events = status_events(won, EventType.PAYMENT_DISPUTE_WON, recurring=ended_rp)
    assert [e.type for e in events] == ["payment.dispute.won"]
