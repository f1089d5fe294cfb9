"""Recording a paid renewal: one transaction holds the new payment (same recurring payment
reference, next sequence; idempotent per subscription and cycle through its order record), its
goal/stats/spend/player effects, the recurring payment one period on, its tiers renewed (a
pending downgrade applied), its schedule item replaced by the next one, and the first chunk of
the `renewal` commands, and its events (`payment.completed`, `recurring-payment.renewed`, and
`status-changed` when it makes a past-due subscription active again: webstore.repo.outbox).
Then the remaining chunks. What every paid payment adds is the payments core's
(`payments.core`); retries follow `webstore.contention`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from webstore import contention, keys
from webstore.catalog import CommandTrigger
from webstore.checkout.tax_details import record_stripe_tax
from webstore.errors import Conflict
from webstore.event_types import EventType
from webstore.payments import planning as payment_planning
from webstore.payments import tax_retry
from webstore.payments.core import add_paid_payment, add_payment_with_commands, take_payment_id
from webstore.payments.events import recurring_event, status_events
from webstore.payments.recording import run_pending_chunks
from webstore.players import Tier
from webstore.recurring import RecurringLine, RecurringPayment, ScheduleItem, ScheduleKind
from webstore.repo import Contention, Transaction, start_read
from webstore.repo.baskets import BasketReads, BasketRepository
from webstore.repo.outbox import OutboxRepository
from webstore.repo.payment_effects import EffectKeys, PaymentEffectsRepository
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.repo.player_tiers import PlayerTierRepository
from webstore.repo.queue import QueueRepository
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.repo.schedule import ScheduleKey, ScheduleRepository, schedule_key
from webstore.repo.store import StoreView
from webstore.repo.users import User
from webstore.services import Services
from webstore.subscriptions import planning
from webstore.subscriptions.renewal_tax import RenewalPrice


@dataclass(frozen=True)
class Renewal:
    """One paid cycle to record."""

    recurring: RecurringPayment  # as read before charging
    lines: list[RecurringLine]  # what was charged for (pending downgrades applied)
    tiers: dict[int, Tier]  # the subscription's tiers as read
    item: ScheduleKey  # the due item being processed
    claim: str
    order_key: str  # fulfilment's idempotency key of this cycle
    gateway_reference: str
    price: RenewalPrice | None = None  # what was charged and its tax (None: the lines' sum, untaxed)


def record_renewal(
    services: Services, renewal: Renewal, view: StoreView, now: datetime
) -> PaymentRecord | None:
    """The renewal payment, recorded once; None when the subscription changed meanwhile
    (another run recorded this cycle, or it ended): the caller decides about the charge."""
    rp = renewal.recurring
    a = rp.account_id
    buyer = User(id=rp.username_id, username=rp.username, uuid=rp.uuid or keys.player_uuid(rp.username))
    lines = planning.payment_lines_of(renewal.lines)
    commands = payment_planning.commands_for(lines, view, CommandTrigger.RENEWAL, now)
    effects = PaymentEffectsRepository(services.table)
    wanted = EffectKeys(
        account_id=a,
        idempotency_key=renewal.order_key,
        buyer_id=rp.username_id,
        month=payment_planning.month_of(now),
        goal_ids=tuple(goal.id for goal in view.goals),
    )
    amount = renewal.price.amount if renewal.price else planning.renewal_amount(renewal.lines)
    tax = renewal.price.tax.model_copy() if renewal.price and renewal.price.tax else None
    if tax is not None and tax.stripe_calculation_id:  # Stripe's tax reports hold the renewal
        tax.stripe_transaction_id = record_stripe_tax(
            services, view.store, tax.stripe_calculation_id, renewal.order_key
        )
    tiers = renewal.tiers
    # The first payment, for the events' subject: read beside the first effects read.
    initial_read = start_read(PaymentRepository(services.table).get, a, rp.initial_payment_id)
    for attempt in contention.attempts():
        if attempt:  # a tier changed meanwhile (a downgrade scheduled or withdrawn): read again
            tiers = PlayerTierRepository(services.table).get_many(a, rp.tier_ids)
        reads = effects.read(wanted)
        if reads.order_payment_id is not None:  # recorded with its recurring payment change
            return None
        ids = reads.ids
        payment = planning.subscription_payment(
            rp,
            take_payment_id(reads.ids),  # the payment and its commands take their ids in the transaction
            amount,
            lines,
            renewal.order_key,
            now,
            checkout_attempt=renewal.gateway_reference or None,  # refunds and duplicates find it
            tax=tax,
        )
        payment_id = payment.id
        after = planning.renewed(rp, renewal.lines, payment_id, payment.transaction_id, "", now)
        assert after.next_payment_at is not None
        next_key = schedule_key(ScheduleKind.RENEWAL, a, rp.reference, after.next_payment_at)
        after.schedule_sk = next_key.sk

        tx = Transaction(services.table)
        add_paid_payment(tx, reads, payment, buyer, email=rp.email, now=now)
        RecurringPaymentRepository.add_change(
            tx, rp, after, fails=Conflict("The subscription changed meanwhile; read it again")
        )
        for tier in _own_tiers(rp, tiers):
            PlayerTierRepository.add_change(tx, a, tier, planning.renewed_tier(tier, after.next_payment_at))
        ScheduleRepository.add_done(tx, renewal.item, renewal.claim)
        if tax is not None and tax.stripe_calculation_id and not tax.stripe_transaction_id:
            tax_retry.add_retry(tx, payment, now)  # Stripe out of reach: the clock makes it later
        ScheduleRepository.add_item(
            tx,
            next_key,
            ScheduleItem(
                kind=ScheduleKind.RENEWAL, account_id=a, reference=rp.reference, due_at=after.next_payment_at
            ),
        )
        initial = initial_read.result()
        events = status_events(payment)
        events.append(recurring_event(after, EventType.RECURRING_RENEWED, last=payment, initial=initial))
        if after.status is not rp.status:  # paid on a retry, or completed by the player: active again
            events.append(
                recurring_event(after, EventType.RECURRING_STATUS_CHANGED, last=payment, initial=initial)
            )
        OutboxRepository.add_all(tx, events)
        queued = payment_planning.with_ids(commands, ids.take("command", len(commands)), payment_id)
        ids.add_to(tx)  # before the commands: their first chunk fills the room left
        add_payment_with_commands(
            tx, QueueRepository(services.table), payment, CommandTrigger.RENEWAL.value, queued
        )
        try:
            tx.commit()
        except Contention:  # another payment took the id, a goal or the stats moved: read again
            continue
        except Conflict:
            return None
        run_pending_chunks(services, payment, CommandTrigger.RENEWAL.value)
        return payment
    raise Conflict("The store is busy; the renewal was not recorded (the next run tries again)")


def cycle_paid_by(services: Services, account_id: int, order_key: str) -> str | None:
    """Which charge paid the cycle of `order_key` (its gateway reference; "" when recorded
    without one), or None while the cycle is unpaid."""
    order = BasketRepository(services.table).read(account_id, BasketReads(order=order_key)).order
    if order is None:
        return None
    return order.checkout_attempt or ""


def _own_tiers(recurring: RecurringPayment, tiers: dict[int, Tier]) -> list[Tier]:
    """The subscription's tiers that are still its own (not replaced by another subscription)."""
    return [
        tier
        for tier_id in recurring.tier_ids
        if (tier := tiers.get(tier_id)) is not None
        and tier.recurring_payment_reference == recurring.reference
        and tier.ongoing
    ]
