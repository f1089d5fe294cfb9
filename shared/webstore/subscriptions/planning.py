"""Pure planning of subscriptions over time: what a purchase starts, what a renewal, a declined
attempt or an end makes of a recurring payment, and how a timed package's timer moves.

No table here: fulfilment and the processor read, call these, and write what they return.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum

from webstore import keys
from webstore.calendar import add_periods
from webstore.catalog import Package, PackageType
from webstore.players import Tier, TierStatus
from webstore.recurring import RecurringLine, RecurringPayment, RecurringStatus, RenewalAction, TimedPackage
from webstore.repo.payments import PaymentLine, PaymentRecord
from webstore.repo.store import StoreView
from webstore.tax.model import PaymentTax

# Why a subscription ended, as its subject's `cancel_reason` shows it.
REASON_DECLINED = "The renewal payment was declined"
REASON_NO_METHOD = "No saved payment method to renew with"
REASON_REPLACED = "Replaced by another subscription in the same category"


def _package(view: StoreView, line: PaymentLine) -> Package | None:
    return None if line.dynamic else view.package(line.package_id)


def subscription_lines(lines: Sequence[PaymentLine], view: StoreView) -> list[tuple[PaymentLine, Package]]:
    """The lines that start a recurring payment: subscription packages with a billing period."""
    found = []
    for line in lines:
        package = _package(view, line)
        if package and package.type is PackageType.SUBSCRIPTION and package.expiry_length > 0:
            found.append((line, package))
    return found


def timed_lines(lines: Sequence[PaymentLine], view: StoreView) -> list[tuple[PaymentLine, Package]]:
    """The lines of timed one-off packages (`single` with an expiry length): one per (receiver,
    package), quantities added (a package listed twice for one player extends one timer)."""
    chosen: dict[tuple[int, int], tuple[PaymentLine, Package]] = {}
    for line in lines:
        package = _package(view, line)
        if package is None or package.type is not PackageType.SINGLE or package.expiry_length <= 0:
            continue
        slot = (line.username_id, line.package_id)
        if slot in chosen:
            earlier = chosen[slot][0]
            line = earlier.model_copy(update={"quantity": earlier.quantity + line.quantity})
        chosen[slot] = (line, package)
    return list(chosen.values())


def new_recurring(
    payment: PaymentRecord,
    view: StoreView,
    tier_ids: Mapping[tuple[int, int], int],
    saved_method: str,
    now: datetime,
) -> RecurringPayment | None:
    """The recurring payment a payment starts (None: it has no subscription line with a period).

    All its subscription lines renew together, on the billing period of the first one; each
    renewal charges the lines' list prices (what the consent on the pay form showed), not the
    first payment's discounts. `tier_ids`: the receivers' tiers by (player, category)."""
    found = subscription_lines(payment.lines, view)
    if not found:
        return None
    period = found[0][1]
    lines = [
        RecurringLine(
            package_id=line.package_id,
            category_id=line.category_id,
            name=line.name,
            quantity=line.quantity,
            price=package.price * line.quantity,
            variables=dict(line.variables),
            username_id=line.username_id,
            username=line.username,
            uuid=line.uuid,
            tier_id=tier_ids.get((line.username_id, line.category_id)),
        )
        for line, package in found
    ]
    return RecurringPayment(
        reference=payment.transaction_id,
        account_id=payment.account_id,
        username_id=payment.username_id,
        username=payment.username,
        uuid=payment.uuid,
        email=payment.email,
        lines=lines,
        amount=sum((line.price for line in lines), Decimal(0)),
        currency=payment.currency,
        period_length=period.expiry_length,
        period_unit=period.expiry_period,
        created_at=now,
        updated_at=now,
        next_payment_at=add_periods(now, period.expiry_length, period.expiry_period),
        last_payment_id=payment.id,
        initial_payment_id=payment.id,
        payment_history=[payment.transaction_id],
        payment_count=1,
        saved_method=saved_method,
        gateway=payment.gateway,
        custom=payment.custom,
    )


def timer_after(
    previous: TimedPackage | None, line: PaymentLine, package: Package, payment: PaymentRecord, now: datetime
) -> TimedPackage:
    """The timer after buying `line`: a running timer is extended from its end (stacking), an
    expired or absent one starts now; each unit bought adds one period."""
    running = previous is not None and not previous.expired and previous.expires_at > now
    start = previous.expires_at if running and previous is not None else now
    return TimedPackage(
        account_id=payment.account_id,
        username_id=line.username_id,
        username=line.username,
        uuid=line.uuid,
        package_id=line.package_id,
        payment_id=payment.id,
        expires_at=add_periods(start, package.expiry_length * line.quantity, package.expiry_period),
        updated_at=now,
    )


def timed_plan_key(username_id: int, package_id: int) -> str:
    """The command plan (on the timer's payment) of one timed package's expiry commands."""
    return f"expiry-{username_id}-{package_id}"


# --- when a renewal item comes due -------------------------------------------------------------


class DueAction(StrEnum):
    CHARGE = "charge"  # renew: charge the saved method
    END_CANCELLED = "end cancelled"  # a cancellation was requested: the period is over
    END_NO_METHOD = "end no method"  # nothing saved to charge (a manual payment): it expires
    END_REPLACED = "end replaced"  # its tiers now belong to another subscription: ends quietly
    STALE = "stale"  # the item is not the record's current one (or the record ended)


def due_action(recurring: RecurringPayment | None, item_sk: str, tiers: Mapping[int, Tier]) -> DueAction:
    if recurring is None or not recurring.ongoing or recurring.schedule_sk != item_sk:
        return DueAction.STALE
    if recurring.tier_ids and all(
        (tier := tiers.get(tier_id)) is None or tier.recurring_payment_reference != recurring.reference
        for tier_id in recurring.tier_ids
    ):
        return DueAction.END_REPLACED
    if recurring.cancel_requested_at is not None:
        return DueAction.END_CANCELLED
    if not recurring.saved_method:
        return DueAction.END_NO_METHOD
    return DueAction.CHARGE


def current_lines(
    recurring: RecurringPayment, tiers: Mapping[int, Tier], view: StoreView
) -> list[RecurringLine]:
    """The lines the coming period renews: a tier's pending downgrade applies (the new package
    and its list price); a line whose tier went to another subscription is left out."""
    lines = []
    for line in recurring.lines:
        tier = tiers.get(line.tier_id) if line.tier_id is not None else None
        if line.tier_id is not None and (
            tier is None or tier.recurring_payment_reference != recurring.reference
        ):
            continue
        if tier is not None and tier.pending_downgrade_package_id is not None:
            package = view.package(tier.pending_downgrade_package_id)
            if package is not None:
                line = line.model_copy(
                    update={
                        "package_id": package.id,
                        "name": package.name,
                        "price": package.price * line.quantity,
                    }
                )
        lines.append(line)
    return lines


def renewal_amount(lines: Sequence[RecurringLine]) -> Decimal:
    return sum((line.price for line in lines), Decimal(0))


def period_after(recurring: RecurringPayment) -> datetime:
    """The next renewal date: one period after the current one (a renewal paid on a retry keeps
    the original billing day)."""
    assert recurring.next_payment_at is not None
    return add_periods(recurring.next_payment_at, recurring.period_length, recurring.period_unit)


def renewed(
    recurring: RecurringPayment,
    lines: list[RecurringLine],
    payment_id: int,
    transaction_id: str,
    schedule_sk: str,
    now: datetime,
) -> RecurringPayment:
    """One period on, paid by payment `payment_id` (its transaction id kept in the history)."""
    return recurring.model_copy(
        update={
            "status": RecurringStatus.ACTIVE,
            "lines": lines,
            "amount": renewal_amount(lines),
            "next_payment_at": period_after(recurring),
            "retry_at": None,
            "fail_count": 0,
            "payment_sequence": recurring.payment_sequence + 1,
            "last_payment_id": payment_id,
            "schedule_sk": schedule_sk,
            "renewal_action": None,
            "updated_at": now,
            **recurring.history_update(transaction_id),
        }
    )


def retry_time(recurring: RecurringPayment, retry_days: Sequence[int], fail_count: int) -> datetime | None:
    """When attempt `fail_count + 1` is made after `fail_count` declines (None: no more tries).
    The days count from the renewal date: [1, 3, 5] tries again 1, 3 and 5 days after it."""
    if fail_count > len(retry_days):
        return None
    assert recurring.next_payment_at is not None
    return recurring.next_payment_at + timedelta(days=retry_days[fail_count - 1])


def declined(
    recurring: RecurringPayment,
    retry_days: Sequence[int],
    schedule_sk: str | None,
    now: datetime,
    action: RenewalAction | None = None,
) -> RecurringPayment:
    """One more declined attempt: PAST_DUE with the next try, or EXPIRED after the last one
    (`schedule_sk`: the retry's item; None when it expires). `action`: what the player can do to
    complete this attempt (it replaces an earlier attempt's; None: nothing to complete)."""
    fail_count = recurring.fail_count + 1
    retry_at = retry_time(recurring, retry_days, fail_count)
    if retry_at is None:
        return ended(recurring, RecurringStatus.EXPIRED, REASON_DECLINED, now, fail_count=fail_count)
    return recurring.model_copy(
        update={
            "status": RecurringStatus.PAST_DUE,
            "fail_count": fail_count,
            "retry_at": retry_at,
            "schedule_sk": schedule_sk,
            "renewal_action": action,
            "updated_at": now,
        }
    )


def ended(
    recurring: RecurringPayment,
    status: RecurringStatus,
    reason: str | None,
    now: datetime,
    *,
    fail_count: int | None = None,
) -> RecurringPayment:
    """The subscription ended (CANCELLED or EXPIRED): no next payment, no schedule item. A
    requested cancellation keeps the player's reason."""
    return recurring.model_copy(
        update={
            "status": status,
            "cancelled_at": now,
            "cancel_reason": recurring.cancel_reason if reason is None else reason,
            "retry_at": None,
            "fail_count": recurring.fail_count if fail_count is None else fail_count,
            "schedule_sk": None,
            "renewal_action": None,
            "updated_at": now,
        }
    )


def end_tier_status(status: RecurringStatus) -> TierStatus:
    return TierStatus.CANCELLED if status is RecurringStatus.CANCELLED else TierStatus.EXPIRED


def renewed_tier(tier: Tier, next_payment_at: datetime) -> Tier:
    """The tier one period on: a pending downgrade applied (active again, on the new package)."""
    update: dict[str, object] = {"next_payment_date": next_payment_at, "status_id": TierStatus.ACTIVE}
    if tier.pending_downgrade_package_id is not None:
        update.update({"package_id": tier.pending_downgrade_package_id, "pending_downgrade_package_id": None})
    return tier.model_copy(update=update)


def ended_tier(tier: Tier, status: TierStatus) -> Tier:
    return tier.model_copy(
        update={"active": False, "status_id": status, "pending_downgrade_package_id": None}
    )


def payment_lines_of(lines: Sequence[RecurringLine]) -> list[PaymentLine]:
    """The recurring lines as payment lines (what a renewal payment records, and what the
    commands of a trigger are planned from)."""
    return [
        PaymentLine(
            package_id=line.package_id,
            category_id=line.category_id,
            name=line.name,
            quantity=line.quantity,
            base_price=line.price / line.quantity if line.quantity else line.price,
            price=line.price,
            variables=dict(line.variables),
            username_id=line.username_id,
            username=line.username,
            uuid=line.uuid,
            subscription=True,
        )
        for line in lines
    ]


@dataclass(frozen=True)
class Idempotency:
    """The keys that make one cycle's work happen once however often it is processed."""

    charge: str  # the gateway's: one per subscription, cycle and attempt
    order: str  # fulfilment's: one payment per subscription and cycle


def renewal_order_key(reference: str, cycle: int) -> str:
    """Fulfilment's idempotency key of one cycle: whichever charge pays it, it is recorded once."""
    return f"renewal-{reference}-{cycle}"


def idempotency(recurring: RecurringPayment) -> Idempotency:
    cycle = recurring.payment_sequence + 1
    return Idempotency(
        charge=f"{renewal_order_key(recurring.reference, cycle)}-{recurring.fail_count + 1}",
        order=renewal_order_key(recurring.reference, cycle),
    )


def charged_cycle(charge_key: str) -> tuple[str, int] | None:
    """(reference, cycle) of a renewal attempt's idempotency key (`idempotency().charge`); None
    for any other key (a tier upgrade's, a checkout's)."""
    match = _CHARGE_KEY.match(charge_key or "")
    return (match.group(1), int(match.group(2))) if match else None


# `renewal-{reference}-{cycle}-{attempt}`; a reference is a transaction id (letters, digits, -, _).
_CHARGE_KEY = re.compile(r"^renewal-([A-Za-z0-9_-]{1,64})-([0-9]{1,9})-[0-9]{1,9}$")


def renewal_action(
    recurring: RecurringPayment, charge_key: str, reference: str, amount: Decimal, url: str
) -> RenewalAction | None:
    """What the player can do about a declined attempt: complete it at `url` (None: no URL)."""
    if not url:
        return None
    return RenewalAction(
        url=url,
        charge_key=charge_key,
        reference=reference,
        cycle=recurring.payment_sequence + 1,
        amount=amount,
    )


def subscription_payment(
    recurring: RecurringPayment,
    payment_id: int,
    amount: Decimal,
    lines: list[PaymentLine],
    idempotency_key: str,
    now: datetime,
    *,
    checkout_attempt: str | None = None,
    tax: PaymentTax | None = None,
) -> PaymentRecord:
    """A payment the subscription itself makes (a renewal, a tier upgrade): buyer, currency,
    gateway, e-mail and custom fields are the subscription's; `payment_id` is the one taken in
    the transaction that records it (payments.core.take_payment_id)."""
    return PaymentRecord(
        id=payment_id,
        transaction_id=keys.new_transaction_id(payment_id),
        account_id=recurring.account_id,
        amount=amount,
        currency=recurring.currency,
        gateway=recurring.gateway,
        email=recurring.email,
        username_id=recurring.username_id,
        username=recurring.username,
        uuid=recurring.uuid,
        lines=lines,
        custom=recurring.custom,
        idempotency_key=idempotency_key,
        checkout_attempt=checkout_attempt,
        recurring_payment_reference=recurring.reference,
        tax=tax,
        created_at=now,
        updated_at=now,
    )
