"""Recording a payment: the one use case every payment source calls once money is in.

`fulfil(services, order)` records the payment and everything it causes, idempotently per
`order.idempotency_key`:

1. One transaction (retried on contention, `webstore.contention`) holding every invariant: what
   every paid payment adds (`payments.core.add_paid_payment`: the payment id, dense, taken from
   the account's sequence in the transaction; the order's idempotency record, community goal
   progress, store stats and the day's figures, the buyer's spend and player records, the
   payment with its command plan and first chunk of commands), and what only a checkout or
   createPayment order has: its command and tier ids, coupon redemptions and per-player uses,
   gift card balances, user_limit purchase counts, tiers, and what it starts over time: the
   recurring payment of its subscription lines with its first schedule item, and its timed
   packages' timers (webstore.subscriptions.fulfilment). A failed limit raises the Conflict its
   repository named; contention re-reads.
2. When the commands do not fit in that transaction, the rest follow in chunks of <= 100
   actions, each also advancing `chunks_done` on the payment with a condition, so a re-run
   continues where a crash stopped and never queues a chunk twice.
3. `payment.completed` (and `recurring-payment.started`) is written in the transaction of step 1
   (webstore.repo.outbox), with an id derived from the payment; the table's stream publishes it.

Status changes (`payments.changes`) use the same plan/chunk mechanism for their triggers.

A caller may add its own actions to the transaction of step 1 (`with_payment`: the hosted
checkout completes its basket there, under its claim), and may issue the read of the first
attempt early, beside its own writes (`start_effects_read`, then `fulfil(early=…)`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime

from webstore import contention
from webstore.catalog import CommandTrigger
from webstore.errors import Conflict, Invalid
from webstore.identity.identify import identify_now
from webstore.payments import planning
from webstore.payments.core import add_paid_payment, add_payment_with_commands, take_payment_id
from webstore.payments.events import status_events
from webstore.payments.order import Order
from webstore.recurring import RecurringPayment
from webstore.repo import Contention, Transaction, start_read
from webstore.repo.checkout_attempts import CheckoutAttemptRepository
from webstore.repo.outbox import OutboxRepository
from webstore.repo.payment_effects import EffectKeys, EffectReads, PaymentEffectsRepository
from webstore.repo.payments import PaymentLine, PaymentRecord, PaymentRepository
from webstore.repo.player_tiers import PlayerTierRepository
from webstore.repo.queue import QueueRepository
from webstore.repo.store import StoreRepository, StoreView
from webstore.repo.users import User
from webstore.services import Services
from webstore.subscriptions import fulfilment as subscription_fulfilment


@dataclass(frozen=True)
class EarlyEffectsRead:
    """The effects read a caller issued before fulfilment (beside its own writes), and the keys
    it named: used for fulfilment's first attempt when they are the keys it needs then."""

    wanted: EffectKeys
    reads: Future[EffectReads]


def effect_keys(
    order: Order, view: StoreView, buyer: User, recipients: Mapping[str, User], now: datetime
) -> EffectKeys:
    """The items recording `order` reads (its conditions compare against them)."""
    lines = planning.payment_lines(order, view, buyer, recipients)
    return _effect_keys(order, view, buyer, lines, now)


def _effect_keys(
    order: Order, view: StoreView, buyer: User, lines: list[PaymentLine], now: datetime
) -> EffectKeys:
    tier_lines = planning.tier_lines(lines, view)
    return EffectKeys(
        account_id=order.account_id,
        idempotency_key=order.idempotency_key,
        buyer_id=buyer.id,
        month=planning.month_of(now),
        coupon_codes=tuple(order.coupons),
        goal_ids=tuple(goal.id for goal in view.goals),
        tier_slots=tuple((line.username_id, line.category_id) for line in tier_lines),
        timers=subscription_fulfilment.timer_slots(lines, view),
    )


def start_effects_read(services: Services, wanted: EffectKeys) -> EarlyEffectsRead:
    """Issue fulfilment's read of `wanted` now, beside the caller's next call (`fulfil(early=…)`)."""
    return EarlyEffectsRead(wanted, start_read(PaymentEffectsRepository(services.table).read, wanted))


def fulfil(
    services: Services,
    order: Order,
    view: StoreView | None = None,
    buyer: User | None = None,
    *,
    early: EarlyEffectsRead | None = None,
    with_payment: Callable[[Transaction, PaymentRecord], None] | None = None,
) -> PaymentRecord:
    """Record the payment of `order` and queue what it causes; the same order twice → the
    same payment, nothing doubled. Conflict when a coupon, gift card or user limit refuses.
    `view` (the store partition as `StoreRepository.operator_view` reads it) and `buyer` (the
    registered user of `order.username`) save a read each when the caller already has them;
    `early` (its effects read, issued before) saves the read of the first attempt when it
    named the same keys. `with_payment` adds the caller's own actions to the payment's
    transaction (the checkout completes its basket there, under its claim)."""
    if view is None or view.store.id != order.account_id:
        view = StoreRepository(services.table).operator_view(order.account_id)
    # Players as the store's identity mode knows them; an online name resolved at login is
    # taken from the registry however old (a payment never waits on the name service).
    if buyer is None or buyer.username.lower() != order.username.lower():
        buyer = identify_now(services, view.store, order.username, refresh=False)
    recipients = {buyer.username.lower(): buyer}
    for line in order.lines:
        if line.gift_username and line.gift_username.lower() not in recipients:
            recipients[line.gift_username.lower()] = identify_now(
                services, view.store, line.gift_username, refresh=False
            )
    if order.currency.upper() != view.store.currency:
        raise Invalid(f"The store sells in {view.store.currency}", field="currency")
    now = services.now()
    lines = planning.payment_lines(order, view, buyer, recipients)
    planning.check_user_limits(lines, view)
    purchase_commands = planning.commands_for(lines, view, CommandTrigger.PURCHASE, now)
    tier_lines = planning.tier_lines(lines, view)
    wanted = _effect_keys(order, view, buyer, lines, now)
    effects = PaymentEffectsRepository(services.table)

    for attempt in contention.attempts():
        if attempt == 0 and early is not None and early.wanted == wanted:
            reads = early.reads.result()
        else:
            reads = effects.read(wanted)
        if reads.order_payment_id is not None:
            return _finish(services, _payment_of_order(services, order.account_id, reads.order_payment_id))
        recording = _Recording(services, order, view, buyer, lines, now)
        ids = reads.ids  # the payment, its commands and new tiers take theirs in the transaction
        payment = recording.payment(reads, take_payment_id(ids))
        commands = planning.with_ids(
            purchase_commands, ids.take("command", len(purchase_commands)), payment.id
        )
        tx = recording.transaction(reads, payment, tier_lines)
        ids.add_to(tx)
        OutboxRepository.add_all(tx, status_events(payment, recurring=recording.recurring))
        if with_payment is not None:
            with_payment(tx, payment)
        elif order.checkout_attempt and order.basket_ident:
            CheckoutAttemptRepository.add_claim_check(tx, order.basket_ident, order.checkout_attempt)
        add_payment_with_commands(
            tx, QueueRepository(services.table), payment, CommandTrigger.PURCHASE.value, commands
        )
        try:
            tx.commit()
        except Contention:  # someone else's payment got the id first, or the same order: re-read
            continue
        return _finish(services, payment)
    raise Conflict("The store is busy; the payment was not recorded, try again")


def resume(services: Services, account_id: int, payment_id: int) -> PaymentRecord:
    """Finish what a recorded payment's run left undone (command chunks): for a
    caller that knows the order is recorded (one GetItem, then only what is pending)."""
    return _finish(services, _payment_of_order(services, account_id, payment_id))


def _payment_of_order(services: Services, account_id: int, payment_id: int) -> PaymentRecord:
    payment = PaymentRepository(services.table).get(account_id, payment_id, consistent=True)
    if payment is None:  # the order record and the payment are written in one transaction
        raise Conflict("The order's payment is missing")
    return payment


def _finish(services: Services, payment: PaymentRecord) -> PaymentRecord:
    """Queue the remaining command chunks of every trigger (its events were written with it)."""
    for trigger in list(payment.plans):
        run_pending_chunks(services, payment, trigger)
    return payment


def run_pending_chunks(services: Services, payment: PaymentRecord, trigger: str) -> None:
    """Each chunk in one transaction with `chunks_done.trigger = i - 1 → i` on the payment, so a
    chunk is queued exactly once however often this runs."""
    queue = QueueRepository(services.table)
    for chunk in payment.pending_chunks(trigger):
        done = payment.chunks_done.get(trigger, 0)
        tx = Transaction(services.table)
        queue.add_enqueue(tx, payment.account_id, chunk)
        PaymentRepository.add_chunk_done(tx, payment, trigger, done)
        try:
            tx.commit()
        except Contention:
            fresh = PaymentRepository(services.table).get(payment.account_id, payment.id, consistent=True)
            if fresh is None or fresh.chunks_done.get(trigger, 0) <= done:
                raise
            payment.chunks_done[trigger] = fresh.chunks_done[trigger]  # another run did it
            continue
        payment.chunks_done[trigger] = done + 1


class _Recording:
    """One attempt: the payment and the transaction that records it, from what was read."""

    def __init__(
        self,
        services: Services,
        order: Order,
        view: StoreView,
        buyer: User,
        lines: list[PaymentLine],
        now: datetime,
    ) -> None:
        self.services = services
        self.order = order
        self.view = view
        self.buyer = buyer
        self.lines = lines
        self.now = now
        self.a = order.account_id
        self.recurring: RecurringPayment | None = None

    def payment(self, reads: EffectReads, payment_id: int) -> PaymentRecord:
        self.coupons = planning.order_coupons(self.order.coupons, reads.coupons, self.buyer)
        return planning.new_payment(
            self.order, self.view.store.currency, self.buyer, self.lines, self.coupons, payment_id, self.now
        )

    def transaction(
        self, reads: EffectReads, payment: PaymentRecord, tier_lines: list[PaymentLine]
    ) -> Transaction:
        tx = Transaction(self.services.table)
        add_paid_payment(tx, reads, payment, self.buyer, email=self.order.email, now=self.now)
        effects = PaymentEffectsRepository
        for coupon in self.coupons:
            effects.add_coupon_redemption(tx, self.a, coupon, self.buyer.id)
        for card in self.order.giftcards:
            if card.amount > 0:
                effects.add_giftcard_debit(tx, self.a, card)
        for username_id, counts in planning.purchase_counts(self.lines).items():
            limits = {}
            for package_id in counts:
                package = self.view.package(package_id)
                if package and package.user_limit:
                    limits[package_id] = package.user_limit
            effects.add_purchases(tx, self.a, username_id, counts, limits)
        tiers = self._tiers(tx, reads, payment, tier_lines)
        self.recurring = subscription_fulfilment.add_to_payment(
            tx, payment, self.view, reads, tiers, self.order.saved_method, self.now
        )
        return tx

    def _tiers(
        self,
        tx: Transaction,
        reads: EffectReads,
        payment: PaymentRecord,
        tier_lines: list[PaymentLine],
    ) -> dict[tuple[int, int], int]:
        """Write the tiers the payment sets; their ids by (player, category)."""
        written = {}
        for line in tier_lines:
            package = self.view.package(line.package_id)
            assert package is not None
            tier_id = reads.tier_slots.get((line.username_id, line.category_id))
            if tier_id is None:
                tier_id = reads.ids.take("tier")[0]
                PlayerTierRepository.add_slot(tx, self.a, line.username_id, line.category_id, tier_id)
            PlayerTierRepository.add_tier(
                tx, self.a, planning.new_tier(line, package, tier_id, payment, self.now)
            )
            written[(line.username_id, line.category_id)] = tier_id
        return written
