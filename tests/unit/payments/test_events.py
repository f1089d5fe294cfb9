"""The events a payment publishes, with a fake publisher: types, subjects, derived ids."""

from __future__ import annotations

from decimal import Decimal

from tests.unit.payments.support import NOW, RECIPIENTS, STEVE, demo_view, order
from webstore.event_types import EventType
from webstore.events import DomainEvent
from webstore.payments import planning
from webstore.payments.events import publish_status
from webstore.payments.order import OrderLine
from webstore.payments.status import PaymentStatus
from webstore.repo.payments import PaymentRecord


class FakePublisher:
    def __init__(self) -> None:
        self.published: list[DomainEvent] = []

    def publish(self, event: DomainEvent) -> None:
        self.published.append(event)


def subscription_payment() -> PaymentRecord:
    the_order = order(
        OrderLine(package_id=1, paid_price=Decimal("4.99")),
        OrderLine(package_id=10, paid_price=Decimal("2.50")),
    )
    lines = planning.payment_lines(the_order, demo_view(), STEVE, RECIPIENTS)
    return planning.new_payment(the_order, "USD", STEVE, lines, [], 0, NOW)


def test_a_completed_subscription_payment_starts_its_recurring_payment() -> None:
    publisher = FakePublisher()
    payment = subscription_payment()
    publish_status(publisher, payment)
    completed, started = publisher.published
    assert (completed.type, started.type) == (EventType.PAYMENT_COMPLETED, EventType.RECURRING_STARTED)
    assert completed.subject["status"] == {"id": 1, "description": "Complete"}
    assert completed.subject["transaction_id"] == payment.transaction_id
    assert started.subject["reference"] == f"{payment.transaction_id}-1"  # the subscription line only
    assert started.subject["status"] == {"id": 1, "description": "Active"}
    again = FakePublisher()
    publish_status(again, payment)
    assert [e.id for e in again.published] == [e.id for e in publisher.published]  # receivers dedupe


def test_a_refund_ends_it_and_a_won_dispute_publishes_no_recurring_event() -> None:
    refunded = subscription_payment().model_copy(update={"status": PaymentStatus.REFUND})
    publisher = FakePublisher()
    publish_status(publisher, refunded)
    assert [e.type for e in publisher.published] == ["payment.refunded", "recurring-payment.ended"]
    ended = publisher.published[1].subject
    assert (ended["status"], ended["cancel_reason"]) == ({"id": 2, "description": "Cancelled"}, "refund")
    won = subscription_payment()  # complete again after a chargeback
    publisher = FakePublisher()
    publish_status(publisher, won, EventType.PAYMENT_DISPUTE_WON)
    assert [e.type for e in publisher.published] == ["payment.dispute.won"]
