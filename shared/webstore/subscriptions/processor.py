"""The processor: everything due up to an instant, each item once (docs/subscriptions.md).

`run_due(services, now)` reads the schedule's shards (one Query each per pass: SK <= now) and, for
each due item: claims it (conditional; a claim expires after CLAIM_SECONDS of real time, so an
item whose run died is taken by a later run), acts, and finishes in the transaction of what it
did (which removes the item under the claim and puts the next one). Passes repeat until nothing
more is due, so processing "as of" a far instant plays every period up to it in order.

What a duplicate run or a crash cannot do: charge twice (the gateway's idempotency key is per
subscription, cycle and attempt), record a cycle twice (the payment's order record is per
subscription and cycle; the recurring payment's change is conditional on the sequence and fail
count read), or queue commands twice (they are written in those same transactions).

The same schedule carries the checkout's reconciliation items (`ScheduleKind.CHECKOUT`: an
attempt that claimed a basket and neither recorded nor released it within
`checkout_attempts.RECONCILE_AFTER`): `checkout.reconcile` records or refunds it.

Callers: `webstore clock run`, the local server's background clock and the scheduled Lambda.
"""

from __future__ import annotations

import logging
import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum

from webstore import contention
from webstore.catalog import CommandTrigger
from webstore.checkout.checkout import gateway_for
from webstore.checkout.gateway import ChargeStatus, OffSessionCharge, PaymentGateway
from webstore.checkout.reconcile import Reconciled, reconcile
from webstore.discord.daily import run_daily
from webstore.errors import Conflict
from webstore.event_types import TIMED_PACKAGE_EXPIRED, EventType
from webstore.events import DomainEvent
from webstore.payments import planning as payment_planning
from webstore.payments import tax_retry
from webstore.payments.events import recurring_event
from webstore.payments.recording import run_pending_chunks
from webstore.players import Tier
from webstore.recurring import (
    SCHEDULE_SHARDS,
    RecurringPayment,
    RecurringStatus,
    RenewalAction,
    ScheduleItem,
    ScheduleKind,
)
from webstore.repo import Contention, Transaction, start_read
from webstore.repo.checkout_attempts import attempt_of_reference
from webstore.repo.outbox import OutboxRepository
from webstore.repo.payments import PaymentLine, PaymentRecord, PaymentRepository
from webstore.repo.player_tiers import PlayerTierRepository
from webstore.repo.queue import QueuedCommand, QueueRepository
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.repo.schedule import Backlog, DueItem, ScheduleKey, ScheduleRepository, schedule_key
from webstore.repo.sequences import IdAllocation, SequenceRepository
from webstore.repo.store import StoreRepository, StoreView
from webstore.services import Services
from webstore.subscriptions import planning
from webstore.subscriptions.endings import Ending, add_ending, plan_ending
from webstore.subscriptions.notices import NoticeReport, run_due_notices
from webstore.subscriptions.renewal_charge import first_payment
from webstore.subscriptions.renewal_tax import price_renewal
from webstore.subscriptions.renewals import Renewal, cycle_paid_by, record_renewal

logger = logging.getLogger(__name__)

CLAIM_SECONDS = 300  # a run that died holding an item gives it up after this long
EXPIRY_PLAN = "expiry"  # the command plan of a subscription's end, on its last payment


class OutcomeKind(StrEnum):
    RENEWAL_CHARGED = "renewal charged"
    RENEWAL_DECLINED = "renewal declined"  # retried later; the perk stays
    EXPIRED = "expired"  # the last attempt was declined, or there was nothing to charge
    CANCELLED = "cancelled"  # the end of a cancelled subscription's paid period
    REPLACED = "replaced"  # its tiers belong to a newer subscription: ended without commands
    TIMED_EXPIRY = "timed expiry"  # a timed one-off package ran out
    DISCORD_RECONCILED = "discord reconciled"  # a store's daily Discord roles check (docs/discord.md)
    CHECKOUT_RECORDED = "checkout recorded"  # a stopped attempt's charge: its payment recorded
    CHECKOUT_REFUNDED = "checkout refunded"  # a stopped attempt closed, what it charged given back
    TAX_RECORDED = "tax recorded"  # a payment's Stripe Tax transaction made on a retry
    STALE = "stale"  # the item no longer matched its record (moved, ended): removed
    BUSY = "busy"  # another run holds the item
    FAILED = "failed"  # an error: the item is released for the next run


@dataclass(frozen=True)
class Outcome:
    kind: OutcomeKind
    reference: str
    account_id: int
    detail: str = ""

    def describe(self) -> str:
        """One line per item, as `webstore clock run` prints it."""
        detail = f" ({self.detail})" if self.detail else ""
        return f"{self.kind.value}: account {self.account_id} {self.reference}{detail}"


@dataclass
class RunReport:
    now: datetime
    outcomes: list[Outcome] = field(default_factory=list)
    notices: NoticeReport = field(default_factory=NoticeReport)  # "renews on …" (apart: e-mail only)

    def count(self, kind: OutcomeKind) -> int:
        return sum(1 for outcome in self.outcomes if outcome.kind is kind)

    @property
    def failed(self) -> list[Outcome]:
        return [outcome for outcome in self.outcomes if outcome.kind is OutcomeKind.FAILED]

    def summary(self) -> str:
        if not self.outcomes:
            return f"Nothing due up to {self.now.isoformat()}{self._notices()}"
        counts = Counter(outcome.kind for outcome in self.outcomes)
        parts = ", ".join(f"{counts[kind]} {kind.value}" for kind in OutcomeKind if counts[kind])
        return f"{len(self.outcomes)} item(s) due up to {self.now.isoformat()}: {parts}{self._notices()}"

    def _notices(self) -> str:
        said = [f"{len(self.notices.sent)} renewal notice(s)"] if self.notices.sent else []
        said += [f"{len(self.notices.failed)} renewal notice(s) failed"] if self.notices.failed else []
        return f"; {', '.join(said)}" if said else ""


def backlog(services: Services, now: datetime) -> Backlog:
    """How many items are due at `now` and the oldest one's due time (the "overdue" alarm):
    key-only Queries, one per shard."""
    return ScheduleRepository(services.table).backlog(now)


def run_due(
    services: Services,
    now: datetime,
    *,
    limit: int | None = None,
    shards: Iterable[int] | None = None,
    gateway: PaymentGateway | None = None,
) -> RunReport:
    """Process everything due at or before `now` (at most `limit` items; only `shards` when
    fanned out). Business dates (renewal dates, retries) come from `now`; claims expire on the
    services' real clock."""
    run = _Run(services, now, gateway)
    chosen = list(range(SCHEDULE_SHARDS)) if shards is None else list(shards)
    pending = list(chosen)
    while pending and (limit is None or len(run.report.outcomes) < limit):
        # A record's next item stays in its shard: only shards where something was done can
        # have new items due (a renewal or retry already due when processing "as of" later).
        pending = [shard for shard in pending if run.shard(shard, limit)]
    # After the renewals, so a notice item due with its renewal sees the subscription renewed.
    run_due_notices(services, now, chosen, run.report.notices)
    return run.report


class _Run:
    def __init__(self, services: Services, now: datetime, gateway: PaymentGateway | None) -> None:
        self.services = services
        self.now = now
        self._gateway = gateway  # tests' override; else each store's own (its Stripe account)
        self.claim = uuid.uuid4().hex
        self.report = RunReport(now)
        self.schedule = ScheduleRepository(services.table)
        self.recurring = RecurringPaymentRepository(services.table)
        self.tiers = PlayerTierRepository(services.table)
        self.views: dict[int, StoreView] = {}
        self.seen: set[ScheduleKey] = set()  # items this run handled (done, failed or busy)

    def shard(self, shard: int, limit: int | None) -> bool:
        """One pass over one shard; whether anything was done."""
        progressed = False
        start = None
        while True:
            room = None if limit is None else limit - len(self.report.outcomes)
            if room is not None and room <= 0:
                return progressed
            due, start = self.schedule.due(shard, self.now, limit=room, start=start)
            for item in due:
                if item.key in self.seen:
                    continue
                if limit is not None and len(self.report.outcomes) >= limit:
                    return progressed
                self.seen.add(item.key)
                outcome = self.process(item)
                self.report.outcomes.append(outcome)
                progressed |= outcome.kind not in (OutcomeKind.BUSY, OutcomeKind.FAILED)
            if start is None:
                return progressed

    def process(self, due: DueItem) -> Outcome:
        item = due.item
        real_now = self.services.now()
        claimed = self.schedule.claim(
            due.key, self.claim, real_now + timedelta(seconds=CLAIM_SECONDS), real_now
        )
        if claimed is None:
            return Outcome(OutcomeKind.BUSY, item.reference, item.account_id)
        try:
            if item.kind is ScheduleKind.EXPIRY:
                return self.timed_expiry(due.key, item)
            if item.kind is ScheduleKind.CHECKOUT:
                return self.checkout(due.key, item)
            if item.kind is ScheduleKind.DISCORD:
                return self.discord(due.key, item)
            if item.kind is ScheduleKind.TAX:
                return self.tax_transaction(due.key, item)
            return self.renewal(due.key, item)
        except Exception as error:  # one item's failure never stops the run; the next retries it
            logger.exception("subscriptions: processing %s failed", due.key.sk)
            self.schedule.release(due.key, self.claim)
            detail = f"attempt {claimed.attempts}: {type(error).__name__}: {error}"
            return Outcome(OutcomeKind.FAILED, item.reference, item.account_id, detail)

    def view(self, account_id: int) -> StoreView:
        if account_id not in self.views:
            self.views[account_id] = StoreRepository(self.services.table).operator_view(account_id)
        return self.views[account_id]

    def drop(self, key: ScheduleKey, item: ScheduleItem) -> Outcome:
        tx = Transaction(self.services.table)
        ScheduleRepository.add_done(tx, key, self.claim)
        tx.commit()
        return Outcome(OutcomeKind.STALE, item.reference, item.account_id)

    # --- Stripe Tax transactions not made at payment ----------------------------------------------

    def tax_transaction(self, key: ScheduleKey, item: ScheduleItem) -> Outcome:
        """Make the payment's Stripe Tax transaction (`payments.tax_retry`); Stripe's error
        leaves the item for the next run (released by `process`)."""
        made = tax_retry.retry(self.services, item.account_id, item.reference)
        self.schedule.remove(key, self.claim)
        kind = OutcomeKind.TAX_RECORDED if made else OutcomeKind.STALE
        return Outcome(kind, item.reference, item.account_id, made or "nothing to record")

    # --- checkout attempts that stopped ---------------------------------------------------------

    def checkout(self, key: ScheduleKey, item: ScheduleItem) -> Outcome:
        """Record or refund what a stopped checkout attempt charged (`checkout.reconcile`); the
        item goes (its attempt's completion or release may have removed it already)."""
        ident, attempt = attempt_of_reference(item.reference)
        done = reconcile(self.services, item.account_id, ident, attempt)
        if done.outcome is Reconciled.PROCESSING:  # the next run asks the processor again
            self.schedule.release(key, self.claim)
            return Outcome(OutcomeKind.BUSY, item.reference, item.account_id, done.detail)
        self.schedule.remove(key, self.claim)
        kind = {
            Reconciled.RECORDED: OutcomeKind.CHECKOUT_RECORDED,
            Reconciled.REFUNDED: OutcomeKind.CHECKOUT_REFUNDED,
        }.get(done.outcome, OutcomeKind.STALE)
        return Outcome(kind, item.reference, item.account_id, done.detail)

    # --- a store's daily Discord reconciliation -------------------------------------------------

    def discord(self, key: ScheduleKey, item: ScheduleItem) -> Outcome:
        done = run_daily(self.services, key, item, self.claim, self.now)
        if done is None:
            return Outcome(OutcomeKind.STALE, item.reference, item.account_id)
        return Outcome(OutcomeKind.DISCORD_RECONCILED, item.reference, item.account_id, done.describe())

    # --- subscriptions ---------------------------------------------------------------------------

    def renewal(self, key: ScheduleKey, item: ScheduleItem) -> Outcome:
        rp = self.recurring.get(item.account_id, item.reference)
        tiers = self.tiers.get_many(item.account_id, rp.tier_ids) if rp else {}
        action = planning.due_action(rp, key.sk, tiers)
        if action is planning.DueAction.STALE or rp is None:
            return self.drop(key, item)
        # An end with expiry commands takes their ids from the sequences: read beside the catalog.
        ends = (planning.DueAction.END_CANCELLED, planning.DueAction.END_NO_METHOD)
        sequences = self.start_sequences_read(rp.account_id) if action in ends else None
        view = self.view(rp.account_id)
        if action is planning.DueAction.END_REPLACED:
            ending = plan_ending(
                rp, tiers, view, RecurringStatus.CANCELLED, planning.REASON_REPLACED, self.now, commands=False
            )
            return self.end(ending, key, OutcomeKind.REPLACED)
        if action is planning.DueAction.END_CANCELLED:
            ending = plan_ending(rp, tiers, view, RecurringStatus.CANCELLED, None, self.now)
            return self.end(ending, key, OutcomeKind.CANCELLED, cancel_requested=True, sequences=sequences)
        if action is planning.DueAction.END_NO_METHOD:
            ending = plan_ending(
                rp, tiers, view, RecurringStatus.EXPIRED, planning.REASON_NO_METHOD, self.now
            )
            return self.end(ending, key, OutcomeKind.EXPIRED, sequences=sequences)
        return self.charge(rp, tiers, view, key)

    def charge(
        self, rp: RecurringPayment, tiers: dict[int, Tier], view: StoreView, key: ScheduleKey
    ) -> Outcome:
        lines = planning.current_lines(rp, tiers, view)
        # Taxed for the first payment's buyer with the store's tax of the day (renewal_tax).
        price = price_renewal(self.services, view.store, rp, lines, first_payment(self.services, rp))
        amount = price.amount
        ids = planning.idempotency(rp)
        gateway = self._gateway or gateway_for(self.services, view.store)
        result = gateway.charge_saved(
            OffSessionCharge(
                idempotency_key=ids.charge,
                saved_method=rp.saved_method,
                amount=amount,
                currency=rp.currency,
                description=f"Renewal {rp.payment_sequence + 1} of {rp.reference}",
            )
        )
        if result.status is ChargeStatus.PAID:
            renewal = Renewal(rp, lines, tiers, key, self.claim, ids.order, result.reference, price)
            payment = record_renewal(self.services, renewal, view, self.now)
            if payment is None:
                return self.not_recorded(rp, key, result.reference, amount, gateway)
            detail = f"payment {payment.transaction_id}, {amount} {rp.currency}"
            return Outcome(OutcomeKind.RENEWAL_CHARGED, rp.reference, rp.account_id, detail)
        action = planning.renewal_action(rp, ids.charge, result.reference, amount, result.redirect_url)
        return self.declined(rp, tiers, view, key, result.reason, action)

    def not_recorded(
        self, rp: RecurringPayment, key: ScheduleKey, reference: str, amount: Decimal, gateway: PaymentGateway
    ) -> Outcome:
        """The charge went through but the cycle was not recorded by this run: another run
        recorded it (the same idempotent charge: nothing to do), or another charge paid the cycle
        (the player completed an earlier attempt) or the subscription ended meanwhile (a refund):
        then this charge goes back."""
        paid_by = cycle_paid_by(self.services, rp.account_id, planning.idempotency(rp).order)
        if paid_by in ("", reference):  # "": recorded before charges were kept on payments
            return Outcome(OutcomeKind.BUSY, rp.reference, rp.account_id, "recorded by another run")
        refunded = gateway.refund(reference, amount)
        self.schedule.release(key, self.claim)
        if paid_by is not None:  # the completion moved the subscription on: this item is done
            detail = f"another charge paid the cycle; this charge refunded={refunded}"
            return Outcome(OutcomeKind.STALE, rp.reference, rp.account_id, detail)
        detail = f"the subscription changed before the renewal was recorded; charge refunded={refunded}"
        return Outcome(OutcomeKind.FAILED, rp.reference, rp.account_id, detail)

    def declined(
        self,
        rp: RecurringPayment,
        tiers: dict[int, Tier],
        view: StoreView,
        key: ScheduleKey,
        reason: str,
        action: RenewalAction | None = None,
    ) -> Outcome:
        retry_days = view.store.renewal_retry_days
        retry_at = planning.retry_time(rp, retry_days, rp.fail_count + 1)
        if retry_at is None:
            ending = plan_ending(
                rp,
                tiers,
                view,
                RecurringStatus.EXPIRED,
                planning.REASON_DECLINED,
                self.now,
                fail_count=rp.fail_count + 1,
            )
            return self.end(ending, key, OutcomeKind.EXPIRED, detail=reason)
        next_key = schedule_key(ScheduleKind.RENEWAL, rp.account_id, rp.reference, retry_at)
        after = planning.declined(rp, retry_days, next_key.sk, self.now, action)
        tx = Transaction(self.services.table)
        RecurringPaymentRepository.add_change(
            tx, rp, after, fails=Conflict("The subscription changed meanwhile; read it again")
        )
        ScheduleRepository.add_done(tx, key, self.claim)
        ScheduleRepository.add_item(
            tx,
            next_key,
            ScheduleItem(
                kind=ScheduleKind.RENEWAL, account_id=rp.account_id, reference=rp.reference, due_at=retry_at
            ),
        )
        OutboxRepository.add_all(tx, self.events(after, [EventType.RECURRING_STATUS_CHANGED]))
        tx.commit()
        detail = f"attempt {after.fail_count}: {reason}; retry at {retry_at.isoformat()}"
        return Outcome(OutcomeKind.RENEWAL_DECLINED, rp.reference, rp.account_id, detail)

    def end(
        self,
        ending: Ending,
        key: ScheduleKey,
        kind: OutcomeKind,
        *,
        cancel_requested: bool | None = None,
        detail: str = "",
        sequences: Future[IdAllocation] | None = None,
    ) -> Outcome:
        """Commit an ending: the recurring payment, tiers, the item, and the expiry commands
        planned on its last payment (their ids taken in the same transaction; `sequences`: the
        id sequences' read, when already issued), and its events: `status-changed` and `ended`."""
        rp = ending.before
        commands = ending.expiry_commands
        chunks: list[list[QueuedCommand]] = []
        events = self.events(ending.after, [EventType.RECURRING_STATUS_CHANGED, EventType.RECURRING_ENDED])

        def build(ids: list[int]) -> Transaction:
            nonlocal chunks
            tx = Transaction(self.services.table)
            add_ending(tx, ending, claim=self.claim, cancel_requested=cancel_requested)
            OutboxRepository.add_all(tx, events)
            room = payment_planning.MAX_TRANSACTION_ACTIONS - len(tx) - 2  # the plan, the sequences
            numbered = payment_planning.with_ids(commands, ids, rp.last_payment_id)
            chunks = payment_planning.chunk_commands(numbered, room)
            if chunks:
                PaymentRepository.add_plan(tx, rp.account_id, rp.last_payment_id, EXPIRY_PLAN, chunks, 1)
                QueueRepository(self.services.table).add_enqueue(tx, rp.account_id, chunks[0])
            return tx

        self.commit_with_command_ids(rp.account_id, len(commands), build, sequences)
        if len(chunks) > 1:  # the last payment as committed, with its expiry plan
            run_pending_chunks(self.services, self.last_payment(ending.after), EXPIRY_PLAN)
        ended = f"{len(commands)} expiry command(s)"
        return Outcome(kind, rp.reference, rp.account_id, f"{detail}; {ended}" if detail else ended)

    def start_sequences_read(self, account_id: int) -> Future[IdAllocation]:
        return start_read(SequenceRepository(self.services.table).read, account_id)

    def commit_with_command_ids(
        self,
        account_id: int,
        count: int,
        build: Callable[[list[int]], Transaction],
        sequences: Future[IdAllocation] | None = None,
    ) -> None:
        """Commit the transaction `build` makes with `count` command ids, taken from the
        account's sequences in that same transaction (repo.sequences). When another writer took
        those ids first, read the sequences again and build again; a contention the sequences
        did not cause (a record the transaction is conditional on changed) propagates."""
        if not count:
            build([]).commit()
            return
        repository = SequenceRepository(self.services.table)
        ids = sequences.result() if sequences is not None else repository.read(account_id)
        for _ in contention.attempts():
            tx = build(ids.take("command", count))
            ids.add_to(tx)
            try:
                tx.commit()
            except Contention:
                again = repository.read(account_id)
                if again.last("command") == ids.last("command"):
                    raise
                ids = again
                continue
            return
        raise Conflict("The store is busy; try again")

    def last_payment(self, rp: RecurringPayment) -> PaymentRecord:
        payment = PaymentRepository(self.services.table).get(
            rp.account_id, rp.last_payment_id, consistent=True
        )
        if payment is None:
            raise Conflict(f"The last payment of {rp.reference} is missing")
        return payment

    def events(self, rp: RecurringPayment, types: list[EventType]) -> list[DomainEvent]:
        """The `recurring-payment.*` events of `rp` as it stands after the change (read before
        the change's transaction: they are written in it)."""
        last = self.last_payment(rp)
        initial = None
        if rp.initial_payment_id != last.id:
            initial = PaymentRepository(self.services.table).get(rp.account_id, rp.initial_payment_id)
        return [recurring_event(rp, event_type, last=last, initial=initial) for event_type in types]

    # --- timed packages --------------------------------------------------------------------------

    def timed_expiry(self, key: ScheduleKey, item: ScheduleItem) -> Outcome:
        username_id, package_id = _timed_parts(item.reference)
        timer = self.recurring.get_timed(item.account_id, username_id, package_id)
        if timer is None or timer.expired or timer.schedule_sk != key.sk:
            return self.drop(key, item)
        payments = PaymentRepository(self.services.table)
        sequences = self.start_sequences_read(item.account_id)  # for the expiry commands' ids
        payment = payments.get(item.account_id, timer.payment_id, consistent=True)
        if payment is None:
            raise Conflict(f"The payment of timer {item.reference} is missing")
        plan = planning.timed_plan_key(username_id, package_id)
        line = _timed_line(payment, username_id, package_id)
        view = self.view(item.account_id)
        commands = (
            payment_planning.commands_for([line], view, CommandTrigger.EXPIRY, self.now) if line else []
        )
        if plan in payment.plans:  # queued by an earlier run: the timer and the item only
            commands = []
        expired = timer.model_copy(update={"expired": True, "schedule_sk": None, "updated_at": self.now})
        chunks: list[list[QueuedCommand]] = []

        def build(ids: list[int]) -> Transaction:
            nonlocal chunks
            tx = Transaction(self.services.table)
            RecurringPaymentRepository.add_timer(tx, expired, timer)
            ScheduleRepository.add_done(tx, key, self.claim)
            OutboxRepository.add(tx, timed_expired_event(item.account_id, username_id, package_id, payment))
            room = payment_planning.MAX_TRANSACTION_ACTIONS - len(tx) - 2  # the plan, the sequences
            numbered = payment_planning.with_ids(commands, ids, payment.id)
            chunks = payment_planning.chunk_commands(numbered, room)
            if chunks:
                PaymentRepository.add_plan(tx, item.account_id, payment.id, plan, chunks, 1)
                QueueRepository(self.services.table).add_enqueue(tx, item.account_id, chunks[0])
            return tx

        try:
            self.commit_with_command_ids(item.account_id, len(commands), build, sequences)
        except Contention:  # bought again meanwhile: the timer moved, this item is stale
            return Outcome(OutcomeKind.STALE, item.reference, item.account_id, "extended meanwhile")
        if len(chunks) > 1:
            payment.plans[plan], payment.chunks_done[plan] = chunks, 1
            run_pending_chunks(self.services, payment, plan)
        return Outcome(
            OutcomeKind.TIMED_EXPIRY, item.reference, item.account_id, f"{len(commands)} expiry command(s)"
        )


def timed_expired_event(
    account_id: int, username_id: int, package_id: int, payment: PaymentRecord
) -> DomainEvent:
    """A timed package ran out (`TIMED_PACKAGE_EXPIRED`, not a webhook type): written with the
    timer's change, so it says what is committed; the Discord consumer takes its roles away."""
    return DomainEvent(
        type=TIMED_PACKAGE_EXPIRED,
        account_id=account_id,
        subject={
            "id": f"{payment.transaction_id}/{username_id}/{package_id}",
            "transaction_id": payment.transaction_id,
            "products": [{"id": package_id, "username": {"id": str(username_id)}}],
        },
    )


def _timed_parts(reference: str) -> tuple[int, int]:
    """(player, package) of a timer reference (`recurring.timed_reference`)."""
    _, username_id, package_id = reference.split("-")
    return int(username_id), int(package_id)


def _timed_line(payment: PaymentRecord, username_id: int, package_id: int) -> PaymentLine | None:
    """The payment's line of the timed package for that player, as one unit (a perk ends once)."""
    for line in payment.lines:
        if line.package_id == package_id and line.username_id == username_id and not line.dynamic:
            return line.model_copy(update={"quantity": 1})
    return None
