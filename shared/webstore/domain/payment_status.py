"""A payment's status: its wire id and description, the events it publishes, and which
changes an operator may make (COMPAT.md: payment status ids; docs/operator.md).

The one table of payment statuses; stored payments are complete, refund or chargeback. (A
recurring payment's own status is webstore.recurring.RecurringStatus.)
"""

from __future__ import annotations

from enum import StrEnum

from webstore.catalog import CommandTrigger
from webstore.errors import Conflict, Invalid
from webstore.event_types import EventType


class PaymentStatus(StrEnum):
    COMPLETE = "complete"
    REFUND = "refund"
    CHARGEBACK = "chargeback"
    DECLINED = "declined"  # published for a failed checkout; never stored

    @property
    def id(self) -> int:
        return _IDS[self]

    @property
    def description(self) -> str:
        return _DESCRIPTIONS[self]

    @property
    def event_type(self) -> EventType:
        """The event a payment in this status is published as (its first time in it)."""
        return _EVENTS[self]

    @property
    def recurring_event(self) -> EventType | None:
        """What a subscription line of a payment entering this status means to receivers."""
        return _RECURRING_EVENTS.get(self)

    @property
    def counts_as_paid(self) -> bool:
        """Whether the payment counts toward the player's payment total."""
        return self is PaymentStatus.COMPLETE

    @classmethod
    def stored(cls) -> tuple[PaymentStatus, ...]:
        return (cls.COMPLETE, cls.REFUND, cls.CHARGEBACK)

    @classmethod
    def parse_stored(cls, value: str, field: str = "status") -> PaymentStatus:
        """A status an operator may set (422 naming `field` otherwise)."""
        if value not in {s.value for s in cls.stored()}:
            raise Invalid("status is one of complete, refund, chargeback", field=field)
        return cls(value)


_IDS = {
    PaymentStatus.COMPLETE: 1,
    PaymentStatus.REFUND: 2,
    PaymentStatus.CHARGEBACK: 3,
    PaymentStatus.DECLINED: 18,
}
_DESCRIPTIONS = {
    PaymentStatus.COMPLETE: "Complete",
    PaymentStatus.REFUND: "Refund",
    PaymentStatus.CHARGEBACK: "Chargeback",
    PaymentStatus.DECLINED: "Declined",
}
_EVENTS = {
    PaymentStatus.COMPLETE: EventType.PAYMENT_COMPLETED,
    PaymentStatus.REFUND: EventType.PAYMENT_REFUNDED,
    PaymentStatus.CHARGEBACK: EventType.PAYMENT_DISPUTE_OPENED,
    PaymentStatus.DECLINED: EventType.PAYMENT_DECLINED,
}
# A subscription starts with its first payment and ends at once with a refund or chargeback of
# any of its payments (renewals, retries and period ends: webstore.subscriptions).
_RECURRING_EVENTS = {
    PaymentStatus.COMPLETE: EventType.RECURRING_STARTED,
    PaymentStatus.REFUND: EventType.RECURRING_ENDED,
    PaymentStatus.CHARGEBACK: EventType.RECURRING_ENDED,
}
# Payment events after which the subscription lines' recurring events follow.
RECURRING_FOLLOWS = frozenset(
    {EventType.PAYMENT_COMPLETED, EventType.PAYMENT_REFUNDED, EventType.PAYMENT_DISPUTE_OPENED}
)


class Transition:
    """One allowed status change: the commands it queues and the event it publishes."""

    def __init__(self, trigger: CommandTrigger | None, event: EventType) -> None:
        self.trigger = trigger
        self.event = event


# Allowed changes (docs/operator.md). A refund is final; a chargeback can be won back.
TRANSITIONS: dict[tuple[PaymentStatus, PaymentStatus], Transition] = {
    (PaymentStatus.COMPLETE, PaymentStatus.REFUND): Transition(
        CommandTrigger.REFUND, EventType.PAYMENT_REFUNDED
    ),
    (PaymentStatus.COMPLETE, PaymentStatus.CHARGEBACK): Transition(
        CommandTrigger.CHARGEBACK, EventType.PAYMENT_DISPUTE_OPENED
    ),
    (PaymentStatus.CHARGEBACK, PaymentStatus.COMPLETE): Transition(None, EventType.PAYMENT_DISPUTE_WON),
}


def transition(current: PaymentStatus, new: PaymentStatus) -> Transition:
    """The change from `current` to `new`, or Conflict (409 naming `status`) when not allowed."""
    found = TRANSITIONS.get((current, new))
    if found is None:
        raise Conflict(f"A {current} payment cannot become {new}", field="status")
    return found
