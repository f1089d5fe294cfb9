"""A tier upgrade (PATCH {headless_url}/tiers/{id} to a dearer package of the tier's category):
charged at once, off-session, to the method the subscription saved, then recorded.

Steps, each resumable (docs/subscriptions.md, "Upgrade"):
1. Claim: one `UpgradeClaim` per tier, target package and billing period
   (`repo.tier_upgrades`), taken with a condition, so concurrent PATCHes charge once: the
   others answer 409 while it is held.
2. Charge the prorated difference (`basket.tier_prorate_price`, what the storefront shows as
   the package's `prorate_price`) with `PaymentGateway.charge_saved`, idempotency key per tier,
   package, period and attempt. Declined → the claim says so, 402, nothing else changed (a
   later PATCH tries again under a new attempt). Paid → the claim says so: whoever comes next
   records, nobody charges again.
3. Record, in one transaction (idempotent through the payment's order record): a payment of the
   prorated amount (same `recurring_payment_reference`, not a renewal: the sequence stays), its
   goal/stats/spend/player effects, the tier on the new package (a pending downgrade dropped),
   the recurring payment's line on the new package and price (renewals charge it from now on),
   and the first chunk of the new deliverables: the `purchase` commands of every package of the
   category above the current one up to the new one (tiers are cumulative on the real platform:
   Bronze → Gold runs Silver's and Gold's). Then the rest of the chunks and `payment.completed`.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

from webstore import contention, keys
from webstore.basket import tier_prorate_price
from webstore.catalog import CommandTrigger, Package, PackageType
from webstore.checkout.gateway import ChargeStatus, OffSessionCharge, PaymentGateway
from webstore.errors import Conflict, DomainError, Invalid
from webstore.payments import planning as payment_planning
from webstore.payments.core import add_paid_payment, add_payment_with_commands, take_payment_id
from webstore.payments.events import status_events
from webstore.payments.recording import run_pending_chunks
from webstore.players import Tier, TierStatus
from webstore.recurring import RecurringPayment
from webstore.repo import Contention, Transaction
from webstore.repo.outbox import OutboxRepository
from webstore.repo.payment_effects import EffectKeys, PaymentEffectsRepository
from webstore.repo.payments import PaymentLine, PaymentRecord, PaymentRepository
from webstore.repo.player_tiers import PlayerTierRepository
from webstore.repo.queue import QueueRepository
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.repo.store import StoreRepository, StoreView
from webstore.repo.tier_upgrades import TierUpgradeRepository, UpgradeClaim, UpgradeState, period_key
from webstore.repo.users import User
from webstore.services import Services
from webstore.subscriptions.planning import subscription_payment

UPGRADED = "Tier successfully upgraded, please allow a few moments for your changes to take effect."
LEASE = timedelta(seconds=60)  # how long a charging request holds the claim (then another may resume)


class NoSavedMethod(Invalid):
    """Nothing to charge off-session (no running subscription, or one paid without saving a
    payment method): the upgrade goes through a checkout of the prorated difference
    (`storefront.tiers`)."""


class PaymentDeclined(DomainError):
    """The saved payment method refused the charge; nothing changed."""

    status = 402
    title = "Payment declined"


def upgrade(
    services: Services, account_id: int, tier: Tier, current: Package, new: Package, gateway: PaymentGateway
) -> str:
    """Charge the prorated difference to the subscription's saved method, then move the tier.
    Conflict (409) while another request charges the same upgrade; PaymentDeclined (402)."""
    now = services.now()
    recurring = RecurringPaymentRepository(services.table).get(account_id, tier.recurring_payment_reference)
    _check_upgradable(recurring, tier)
    assert recurring is not None
    period = period_key(tier.next_payment_date)
    claims = TierUpgradeRepository(services.table)
    claim = claims.get(account_id, tier.id, new.id, period)
    if claim is None or claim.state is not UpgradeState.PAID:
        amount = tier_prorate_price(tier, current, new, recurring.currency, now)
        wanted = UpgradeClaim(
            tier_id=tier.id,
            package_id=new.id,
            period=period,
            state=UpgradeState.CHARGING,
            attempt=1,
            amount=amount,
            claimed_until=now,
            updated_at=now,
        )
        claim = claims.claim(account_id, claim, wanted, now, LEASE)
        claim = _charge(services, claims, account_id, recurring, claim, new, gateway, now)
    record_upgrade(services, recurring, tier, new, claim, gateway, now)
    return UPGRADED


def _check_upgradable(recurring: RecurringPayment | None, tier: Tier) -> None:
    if recurring is None or not recurring.ongoing or tier.id not in recurring.tier_ids:
        raise NoSavedMethod(
            "The tier has no running subscription to charge: add the package to a basket "
            "(checkout charges its prorate_price)",
            field="package_id",
        )
    if recurring.cancel_requested_at is not None:
        raise Invalid(
            "The subscription is cancelled; undo the cancellation before upgrading", field="package_id"
        )
    if not recurring.saved_method:
        raise NoSavedMethod(
            "No saved payment method to charge: add the package to a basket "
            "(checkout charges its prorate_price)",
            field="package_id",
        )


def _charge(
    services: Services,
    claims: TierUpgradeRepository,
    account_id: int,
    recurring: RecurringPayment,
    claim: UpgradeClaim,
    new: Package,
    gateway: PaymentGateway,
    now: datetime,
) -> UpgradeClaim:
    if claim.amount <= 0:  # nothing left of the period to pay for
        return claims.settle(account_id, claim, UpgradeState.PAID, "", now)
    result = gateway.charge_saved(
        OffSessionCharge(
            idempotency_key=f"tier-upgrade-{account_id}-{claim.tier_id}-{new.id}-{claim.period}-{claim.attempt}",
            saved_method=recurring.saved_method,
            amount=claim.amount,
            currency=recurring.currency,
            description=f"Upgrade to {new.name} ({recurring.reference})",
        )
    )
    if result.status is ChargeStatus.PAID:
        return claims.settle(account_id, claim, UpgradeState.PAID, result.reference, now)
    claims.settle(account_id, claim, UpgradeState.DECLINED, "", now)
    reason = result.reason or "The payment was declined"
    raise PaymentDeclined(f"{reason}; the tier was not changed", field="package_id")


def deliverables(view: StoreView, current: Package, new: Package) -> list[Package]:
    """The packages an upgrade from `current` to `new` adds: those of the category priced above
    the current one, up to the new one (cumulative tiers), cheapest first."""
    found = [
        p
        for p in view.packages
        if p.category_id == new.category_id
        and p.type is PackageType.SUBSCRIPTION
        and not p.disabled
        and current.price < p.price <= new.price
    ]
    if new not in found:
        found.append(new)
    return sorted(found, key=lambda p: (p.price, p.order, p.id))


def record_upgrade(
    services: Services,
    recurring: RecurringPayment,
    tier: Tier,
    new: Package,
    claim: UpgradeClaim,
    gateway: PaymentGateway,
    now: datetime,
) -> PaymentRecord:
    """The paid upgrade recorded once (its order record), the tier and subscription moved. A
    contention re-reads both; when the tier has left the package it was charged for meanwhile
    (a renewal applied a downgrade, the subscription ended), the charge is refunded: Conflict."""
    a = recurring.account_id
    view = StoreRepository(services.table).operator_view(a)
    current = view.package(tier.package_id)
    from_package_id = tier.package_id
    line = next(line for line in recurring.lines if line.tier_id == tier.id)
    buyer = User(
        id=recurring.username_id,
        username=recurring.username,
        uuid=recurring.uuid or keys.player_uuid(recurring.username),
    )
    payment_line = PaymentLine(
        package_id=new.id,
        category_id=new.category_id,
        name=new.name,
        quantity=line.quantity,
        base_price=new.price,
        price=claim.amount,
        variables=dict(line.variables),
        username_id=line.username_id,
        username=line.username,
        uuid=line.uuid,
        subscription=True,
    )
    added = deliverables(view, current, new) if current is not None else [new]
    command_lines = [payment_line.model_copy(update={"package_id": p.id, "name": p.name}) for p in added]
    commands = payment_planning.commands_for(command_lines, view, CommandTrigger.PURCHASE, now)
    order_key = f"tier-upgrade-{tier.id}-{new.id}-{claim.period}"
    effects = PaymentEffectsRepository(services.table)
    wanted = EffectKeys(
        account_id=a,
        idempotency_key=order_key,
        buyer_id=recurring.username_id,
        month=payment_planning.month_of(now),
        goal_ids=tuple(goal.id for goal in view.goals),
    )
    payments = PaymentRepository(services.table)
    for attempt in contention.attempts():
        reads = effects.read(wanted)
        if reads.order_payment_id is not None:  # recorded (by this request before, or another)
            payment = payments.get(a, reads.order_payment_id, consistent=True)
            if payment is None:
                raise Conflict("The upgrade's payment is missing")
            return _finish(services, payment)
        if attempt:
            recurring, tier = _reread(services, recurring, tier, from_package_id, claim, gateway)
        ids = reads.ids  # the payment and its commands take their ids in the transaction
        payment_id = take_payment_id(ids)
        payment = subscription_payment(recurring, payment_id, claim.amount, [payment_line], order_key, now)
        tx = Transaction(services.table)
        add_paid_payment(tx, reads, payment, buyer, email=recurring.email, now=now)
        moved = moved_recurring(recurring, tier.id, new, now)
        moved = moved.model_copy(update=recurring.history_update(payment.transaction_id))
        RecurringPaymentRepository.add_change(tx, recurring, moved)
        PlayerTierRepository.add_change(tx, a, tier, moved_tier(tier, new))
        OutboxRepository.add_all(tx, status_events(payment))
        queued = payment_planning.with_ids(commands, ids.take("command", len(commands)), payment_id)
        ids.add_to(tx)  # before the commands: their first chunk fills the room left
        add_payment_with_commands(
            tx, QueueRepository(services.table), payment, CommandTrigger.PURCHASE.value, queued
        )
        try:
            tx.commit()
        except Contention:  # another payment took the id, the stats moved, the tier changed: again
            continue
        return _finish(services, payment)
    raise Conflict("The store is busy; the upgrade is paid and will be recorded when you try again")


def _reread(
    services: Services,
    recurring: RecurringPayment,
    tier: Tier,
    from_package_id: int,
    claim: UpgradeClaim,
    gateway: PaymentGateway,
) -> tuple[RecurringPayment, Tier]:
    fresh = RecurringPaymentRepository(services.table).get(recurring.account_id, recurring.reference)
    fresh_tier = PlayerTierRepository(services.table).get(recurring.account_id, tier.id)
    if (
        fresh is not None
        and fresh.ongoing
        and fresh_tier is not None
        and fresh_tier.ongoing
        and fresh_tier.package_id == from_package_id
        and fresh_tier.recurring_payment_reference == fresh.reference
    ):
        return fresh, fresh_tier
    if claim.charge_reference:
        gateway.refund(claim.charge_reference, claim.amount)
    TierUpgradeRepository(services.table).settle(
        recurring.account_id,
        claim,
        UpgradeState.REFUNDED,
        claim.charge_reference,
        services.now(),
        held=UpgradeState.PAID,
    )
    raise Conflict("The tier changed meanwhile; the upgrade's charge was refunded", field="package_id")


def _finish(services: Services, payment: PaymentRecord) -> PaymentRecord:
    """The remaining command chunks (its `payment.completed` was written with it)."""
    run_pending_chunks(services, payment, CommandTrigger.PURCHASE.value)
    return payment


def moved_recurring(
    recurring: RecurringPayment, tier_id: int, new: Package, now: datetime
) -> RecurringPayment:
    """The subscription renewing the new package for that tier's line (its list price)."""
    lines = [
        line.model_copy(update={"package_id": new.id, "name": new.name, "price": new.price * line.quantity})
        if line.tier_id == tier_id
        else line
        for line in recurring.lines
    ]
    return recurring.model_copy(
        update={"lines": lines, "amount": sum((line.price for line in lines), Decimal(0)), "updated_at": now}
    )


def moved_tier(tier: Tier, new: Package) -> Tier:
    return tier.model_copy(
        update={"package_id": new.id, "status_id": TierStatus.ACTIVE, "pending_downgrade_package_id": None}
    )
