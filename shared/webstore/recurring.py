"""Subscriptions over time: the recurring payment a subscription purchase starts, the timer of a
timed one-off package, and the schedule items that make them happen (docs/subscriptions.md).

Records (account partition, `keys.recurring_payment_sk` / `keys.timed_package_sk`):

- `RecurringPayment`: one per payment holding subscription lines, keyed by that first payment's
  transaction id (`reference`, the same as its tiers' `recurring_payment_reference`). Written by
  fulfilment in the payment's own transaction, with its first schedule item.
  It keeps the transaction ids of the subscription's payments (`payment_history`, oldest first,
  at most `PAYMENT_HISTORY_LIMIT`, with `payment_count` of all ever added), written in the
  transaction that records each payment (first payment, renewal, upgrade); None on records
  written before the list existed.
- `TimedPackage`: one per (player, timed one-off package): when it expires and the schedule item
  that will expire it. A second purchase while it runs moves that one item (stacking).

The schedule (`ScheduleItem`): every future thing is one item in one of `SCHEDULE_SHARDS`
partitions, SK `<due ISO>#<kind>#<account>#<reference>`, so "everything due up to now" is one
Query per shard (SK <= now), costing what is due. A record names its current item (`schedule_sk`);
moving or neutralising it happens in the transaction that changes the record.

Cancellation contract (the `cancel` use cases build on this; the processor honours it):

- Requesting a cancellation sets `cancel_requested_at` and `cancel_reason` on the recurring
  payment with one conditional update (`RecurringPaymentRepository.request_cancel`: the
  subscription is still ongoing and no cancellation is pending). Nothing else changes: the
  schedule item stays where it is, the tier stays active (its status changes only when the
  subscription ends).
- When the schedule item comes due and the record has `cancel_requested_at`, the processor
  does not charge: it ends the subscription as CANCELLED (3): expiry commands queued, tiers
  CANCELLED, `recurring-payment.ended` published.
- Aborting (`RecurringPaymentRepository.abort_cancel`) removes `cancel_requested_at` and
  `cancel_reason` again, conditional on the request existing, the subscription still ongoing
  and its period not yet ended (`next_payment_at > now`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from enum import IntEnum, StrEnum

from pydantic import Field

from webstore.catalog import Model


class RecurringStatus(IntEnum):
    """A recurring payment's status id (its subject's `status {id, description}`); the ended
    ones (3, 4) use the tier status ids of the same meaning."""

    ACTIVE = 1
    PAST_DUE = 2  # a renewal was declined; retries are scheduled, the perk stays
    CANCELLED = 3  # ended by a cancellation, a refund or a chargeback
    EXPIRED = 4  # ended because the last renewal attempt was declined (or nothing to charge)

    @property
    def description(self) -> str:
        return self.name.replace("_", " ").capitalize()

    @property
    def ongoing(self) -> bool:
        return self in (RecurringStatus.ACTIVE, RecurringStatus.PAST_DUE)


ONGOING_RECURRING = tuple(s for s in RecurringStatus if s.ongoing)

# Transaction ids a recurring payment keeps (two years of monthly payments): the record stays
# small and bounded however long the subscription lives.
PAYMENT_HISTORY_LIMIT = 24


def history_with(history: list[str] | None, transaction_id: str) -> list[str] | None:
    """The payment history after one more payment: appended, the oldest dropped past
    PAYMENT_HISTORY_LIMIT. None stays None (a record written before the list was kept: a
    partial list would claim a history it does not know)."""
    if history is None:
        return None
    return [*history, transaction_id][-PAYMENT_HISTORY_LIMIT:]


class RecurringLine(Model):
    """One subscription line the recurring payment renews (receiver, package, quantity)."""

    package_id: int
    category_id: int
    name: str
    quantity: int = 1
    price: Decimal  # what a renewal charges for this line (list price x quantity at purchase)
    variables: dict[str, str] = Field(default_factory=dict)
    username_id: int
    username: str
    uuid: str | None = None
    tier_id: int | None = None  # the receiver's tier, when the category is tiered


class RenewalAction(Model):
    """A declined renewal the player can still complete: the bank asked them to authenticate
    the off-session charge. Kept until the cycle is paid or the subscription ends."""

    url: str  # where the player completes it (the processor's page, or the sandbox's)
    charge_key: str  # that attempt's idempotency key (Stripe: metadata `off_session_charge`)
    reference: str  # the processor's reference of that charge (a PaymentIntent id)
    cycle: int  # the `payment_sequence` completing it records
    amount: Decimal  # what the attempt charges


class RecurringPayment(Model):
    """A subscription's standing: what it charges, when, how often it failed, and how it ends."""

    reference: str  # the first payment's transaction id
    account_id: int
    username_id: int  # the payer
    username: str
    uuid: str | None = None
    email: str = ""
    lines: list[RecurringLine]
    amount: Decimal  # one renewal's charge (the lines' prices)
    currency: str
    period_length: int
    period_unit: str  # day | month | year
    status: RecurringStatus = RecurringStatus.ACTIVE
    created_at: datetime
    updated_at: datetime
    next_payment_at: datetime | None = None  # when the current period ends (the next charge)
    retry_at: datetime | None = None  # PAST_DUE: the next attempt
    fail_count: int = 0  # declined attempts of the current cycle
    payment_sequence: int = 1  # payments made so far (the first is 1)
    last_payment_id: int  # the latest payment (renewal commands, expiry commands go on it)
    initial_payment_id: int
    saved_method: str = ""  # the gateway's reference of the method saved at checkout ("": none)
    gateway: str = ""
    cancel_requested_at: datetime | None = None
    cancel_reason: str | None = None
    cancelled_at: datetime | None = None  # when it ended (any ended status)
    schedule_sk: str | None = None  # its current schedule item (None once ended)
    renewal_action: RenewalAction | None = None  # PAST_DUE: a decline the player can complete
    custom: dict[str, object] | None = None
    # the transaction ids of its payments, oldest first, the latest PAYMENT_HISTORY_LIMIT (None:
    # written before the list was kept); `payment_count` counts every payment ever added to it
    payment_history: list[str] | None = None
    payment_count: int = 0

    def history_update(self, transaction_id: str) -> dict[str, object]:
        """The fields that record one more payment of this subscription (for `model_copy`)."""
        if self.payment_history is None:
            return {}
        return {
            "payment_history": history_with(self.payment_history, transaction_id),
            "payment_count": self.payment_count + 1,
        }

    @property
    def package_ids(self) -> list[int]:
        return [line.package_id for line in self.lines]

    @property
    def tier_ids(self) -> list[int]:
        return [line.tier_id for line in self.lines if line.tier_id is not None]

    @property
    def ongoing(self) -> bool:
        return self.status.ongoing


class TimedPackage(Model):
    """A timed one-off package a player holds until `expires_at` (one per player and package)."""

    account_id: int
    username_id: int
    username: str
    uuid: str | None = None
    package_id: int
    payment_id: int  # the latest purchase (its expiry commands are planned on it)
    expires_at: datetime
    expired: bool = False
    schedule_sk: str | None = None
    updated_at: datetime

    @property
    def reference(self) -> str:
        return timed_reference(self.username_id, self.package_id)


def timed_reference(username_id: int, package_id: int) -> str:
    return f"timed-{username_id}-{package_id}"


class ScheduleKind(StrEnum):
    RENEWAL = "renewal"  # a subscription's due date: charge, retry, or end (cancelled / no method)
    EXPIRY = "expiry"  # a timed one-off package's end
    CHECKOUT = "checkout"  # a checkout attempt's reconciliation: recorded or refunded if it stopped
    NOTICE = "notice"  # "your subscription renews on …" (webstore.subscriptions.notices)
    TAX = "tax"  # a payment's Stripe Tax transaction that could not be made at payment: retried


SCHEDULE_SHARDS = 8  # "due up to now" = SCHEDULE_SHARDS Queries; spreads a burst's writes


class ScheduleItem(Model):
    """One thing due at `due_at`: the processor claims it, acts, and replaces or deletes it."""

    kind: ScheduleKind
    account_id: int
    reference: str  # RecurringPayment.reference, TimedPackage.reference or `{basket}/{attempt}`
    due_at: datetime
    claimed_until: datetime | None = None
    claim: str | None = None
    attempts: int = 0  # claims taken on it (a run that keeps dying on it shows here)


def schedule_moment(moment: datetime) -> str:
    """A fixed-width, sortable UTC instant for schedule keys."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
