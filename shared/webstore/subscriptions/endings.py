"""How a subscription ends, whatever ends it (the processor at a period's end or after the last
declined renewal; a refund or chargeback at once): the recurring payment's final standing, its
tiers, its schedule item neutralised and its expiry commands, in one transaction."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from webstore.catalog import CommandTrigger
from webstore.errors import Conflict
from webstore.payments import planning as payment_planning
from webstore.players import Tier
from webstore.recurring import RecurringPayment, RecurringStatus
from webstore.repo import Transaction
from webstore.repo.payments import PaymentRecord
from webstore.repo.player_tiers import PlayerTierRepository
from webstore.repo.queue import QueuedCommand
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.repo.schedule import ScheduleRepository, key_of_sk
from webstore.repo.store import StoreView
from webstore.services import Services
from webstore.subscriptions import planning


@dataclass
class Ending:
    """What ending one subscription writes (the caller plans `expiry_commands` on a payment)."""

    before: RecurringPayment
    after: RecurringPayment
    tiers: list[tuple[Tier, Tier]] = field(default_factory=list)  # (as read, as written)
    expiry_commands: list[QueuedCommand] = field(default_factory=list)  # ids not assigned yet


def plan_ending(
    recurring: RecurringPayment,
    tiers: Mapping[int, Tier],
    view: StoreView,
    status: RecurringStatus,
    reason: str | None,
    now: datetime,
    *,
    commands: bool = True,
    fail_count: int | None = None,
) -> Ending:
    """End `recurring` as `status`: its tiers that are still its own end with it; the expiry
    commands of its current lines (a replaced subscription's tiers moved on: `commands=False`)."""
    after = planning.ended(recurring, status, reason, now, fail_count=fail_count)
    tier_status = planning.end_tier_status(status)
    ending = Ending(recurring, after)
    for tier_id in recurring.tier_ids:
        tier = tiers.get(tier_id)
        if tier is not None and tier.recurring_payment_reference == recurring.reference and tier.ongoing:
            ending.tiers.append((tier, planning.ended_tier(tier, tier_status)))
    if commands:
        lines = planning.payment_lines_of(planning.current_lines(recurring, tiers, view))
        ending.expiry_commands = payment_planning.commands_for(lines, view, CommandTrigger.EXPIRY, now)
    return ending


def add_ending(
    tx: Transaction, ending: Ending, *, claim: str | None = None, cancel_requested: bool | None = None
) -> None:
    """The recurring payment (conditional on its state as read), its tiers, and its schedule item
    removed (under `claim` when the processor holds it; outright for a refund)."""
    before = ending.before
    RecurringPaymentRepository.add_change(
        tx,
        before,
        ending.after,
        cancel_requested=cancel_requested,
        fails=Conflict("The subscription changed meanwhile; read it again"),
    )
    if before.schedule_sk:
        ScheduleRepository.add_done(
            tx, key_of_sk(before.account_id, before.reference, before.schedule_sk), claim
        )
    for tier_before, tier_after in ending.tiers:
        PlayerTierRepository.add_change(tx, before.account_id, tier_before, tier_after)


REFUND_REASONS = {
    "refund": "A payment of the subscription was refunded",
    "chargeback": "A payment of the subscription was charged back",
}


def ending_by_payment(
    services: Services, payment: PaymentRecord, new_status: str, view: StoreView, now: datetime
) -> Ending | None:
    """The end of the subscription `payment` started or renewed, when it becomes a refund or a
    chargeback (None: not a subscription payment, or the subscription has ended already).
    Reads the recurring payment and its tiers (two round trips, subscription payments only)."""
    reason = REFUND_REASONS.get(new_status)
    reference = payment.recurring_payment_reference
    if reason is None or not reference:
        return None
    recurring = RecurringPaymentRepository(services.table).get(payment.account_id, reference)
    if recurring is None or not recurring.ongoing:
        return None
    tiers = PlayerTierRepository(services.table).get_many(payment.account_id, recurring.tier_ids)
    return plan_ending(recurring, tiers, view, RecurringStatus.CANCELLED, reason, now)


def action_count(ending: Ending | None) -> int:
    """How many transaction actions `add_ending` takes (room the caller keeps)."""
    if ending is None:
        return 0
    changed = RecurringPaymentRepository.change_actions(ending.before, ending.after)
    return changed + int(bool(ending.before.schedule_sk)) + len(ending.tiers)
