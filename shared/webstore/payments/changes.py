"""Changes to a recorded payment: its status (refund, chargeback, won back), its owner, notes.

A status change queues its trigger's package commands once (the plan is stored on the payment
with the change, conditional on the status and owner read, so two concurrent changes cannot
both apply) and writes the transition's event with it (webstore.repo.outbox).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal

from webstore.domain.invoices import CREDIT_SERIES, DocumentNumber, Refund, series_of
from webstore.domain.payment_status import TRANSITIONS, PaymentStatus, transition
from webstore.errors import Conflict, Invalid
from webstore.identity.identify import identify_in_store
from webstore.payments import planning
from webstore.payments.events import status_events
from webstore.payments.gateway_refunds import refund_at_processor
from webstore.payments.recording import run_pending_chunks
from webstore.repo import Transaction, start_read
from webstore.repo.audit_log import Audit
from webstore.repo.daily_stats import DailyStatsRepository
from webstore.repo.outbox import OutboxRepository
from webstore.repo.payments import PaymentNote, PaymentRecord, PaymentRepository
from webstore.repo.players import PlayerRepository
from webstore.repo.queue import QueuedCommand, QueueRepository, enqueue_cost
from webstore.repo.sequences import IdAllocation, SequenceRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.subscriptions import endings

# Room the status change's transaction keeps for its own actions beside the first chunk of
# commands: the payment, the players' counters and records (at most 4: an owner change), the
# sequences and the day's figures (at most 7), its events (at most 2).
_CHANGE_ACTIONS = 10
# The statuses a change to queues commands for (every transition to them has a trigger).
_QUEUEING = frozenset(new for (_, new), change in TRANSITIONS.items() if change.trigger is not None)


def change_payment(
    services: Services,
    account_id: int,
    transaction_id: str,
    status: str | None,
    username: str | None,
    *,
    refunded_at_processor: bool = False,
    refund_reference: str = "status",
    withdraw: bool = True,
    audit: Callable[[PaymentRecord, PaymentRecord], Audit] | None = None,
    final_chargeback: bool = True,
) -> PaymentRecord:
    """Change status and/or reassign the payment to another player; the payment as it is now.
    A refund of a payment a processor took goes back through it first (unless it reports the
    refund itself: `refunded_at_processor`) and is recorded only when it accepted. `audit(before,
    after)`: the audit entry written in the change's transaction (the panel's); a request that
    changes nothing writes nothing. A refund records what was still refundable as a refund with
    its credit note (numbered in the change's transaction; `refund_reference`: the processor's
    refund id when it reported it) and then asks for the tax reversal
    (`payments.refunds.reverse_tax`).

    A refund or chargeback first withdraws (`withdraw`, the default) the payment's grants no
    plugin was handed yet (repo.queue `fetched_at`) and queues its own commands only for the
    (package, server) pairs some grant may have reached: a rank never given is not taken away.
    The withdrawal is in the change's transaction, each delete conditional on the command being
    still unfetched, so a plugin polling meanwhile either never receives it or keeps it (the
    change reads again and then counts it as delivered)."""
    if status is None and username is None:
        raise Invalid("Send status and/or username", field="status")
    new_status = PaymentStatus.parse_stored(status) if status is not None else None
    # A refund or chargeback queues its trigger's commands: the store (what to queue) and the id
    # sequences are read beside the payment, so the change is one read and one transaction.
    queues = new_status in _QUEUEING
    view_read = start_read(StoreRepository(services.table).operator_view, account_id) if queues else None
    sequences = SequenceRepository(services.table)
    ids_read = start_read(sequences.read, account_id) if queues else None
    repo = PaymentRepository(services.table)
    payment = repo.by_transaction(account_id, transaction_id)
    new_status = new_status or payment.status
    change = transition(payment.status, new_status) if new_status != payment.status else None
    new_owner = identify_in_store(services, account_id, username) if username else None
    if new_owner and new_owner.id == payment.username_id:
        new_owner = None
    if change is None and new_owner is None:
        return payment
    refunding = new_status is PaymentStatus.REFUND and change is not None
    # A chargeback reverses the sale: a final one (set through the API or the panel, or a lost
    # dispute) gets its credit note like a full refund; a dispute still open does not yet.
    charged_back = new_status is PaymentStatus.CHARGEBACK and change is not None and final_chargeback
    if refunding and not refunded_at_processor:
        refund_at_processor(services, payment)

    now = services.now()
    new_plan = None
    planned: list[QueuedCommand] = []
    ending = None
    if change is not None and change.trigger is not None and change.trigger.value not in payment.plans:
        new_plan = change.trigger.value
        view = view_read.result() if view_read else StoreRepository(services.table).operator_view(account_id)
        planned = planning.commands_for(payment.lines, view, change.trigger, now)
        # A subscription payment refunded or charged back ends its subscription at once: its
        # expiry commands join this plan (docs/subscriptions.md).
        ending = endings.ending_by_payment(services, payment, new_plan, view, now)
        planned += ending.expiry_commands if ending else []
    room = planning.MAX_TRANSACTION_ACTIONS - _CHANGE_ACTIONS - endings.action_count(ending) - bool(audit)
    recurring = ending.after if ending else None
    initial = None  # the subscription's first payment, when this is a renewal's (its events)
    if change is not None and recurring is not None and recurring.initial_payment_id != payment.id:
        initial = repo.get(account_id, recurring.initial_payment_id)

    queue = QueueRepository(services.table)
    grants = planning.granted(payment) if new_plan is not None and withdraw else []

    def build(ids: IdAllocation) -> tuple[Transaction, PaymentRecord]:
        """The change's transaction, its command ids taken from `ids` (built again on contention,
        the undelivered grants read again)."""
        updated = planning.reassigned(payment, new_owner) if new_owner else payment.model_copy(deep=True)
        updated.status = new_status
        updated.updated_at = now
        first_chunk = []
        withdrawn = planning.to_withdraw(grants, queue.undelivered(account_id, grants), room)
        if new_plan is not None:
            plan = planning.undoing(planned, payment, withdrawn)
            commands = planning.with_ids(plan, ids.take("command", len(plan)), payment.id)
            first_chunk = planning.plan_commands(updated, new_plan, commands, room - enqueue_cost(withdrawn))
        if refunding or (charged_back and payment.refundable_amount > 0):
            rest = payment.refundable_amount
            reference = CHARGEBACK_REFERENCE if charged_back else refund_reference
            updated.refunds.append(credit_note_for(ids, payment, rest, reference, now))
        tx = Transaction(services.table)
        PaymentRepository.add_change(
            tx,
            payment,
            updated,
            new_plan,
            fails=Conflict("The payment changed meanwhile; read it again and retry"),
        )
        DailyStatsRepository.add_status_change(tx, payment, updated, now)
        for counter_change in planning.counter_changes(payment, updated):
            if counter_change.new_owner:
                assert new_owner is not None
                PlayerRepository.add_player(
                    tx, account_id, new_owner, email=updated.email, now=now, counters=counter_change.counters
                )
            else:
                PlayerRepository.add_counters(
                    tx, account_id, counter_change.username_id, counter_change.counters
                )
        QueueRepository.add_enqueue(tx, account_id, first_chunk, withdrawn)
        if ending is not None:
            endings.add_ending(tx, ending)
        if change is not None:
            events = status_events(updated, change.event, recurring=recurring, initial=initial)
            OutboxRepository.add_all(tx, events)
        if audit is not None:
            audit(payment, updated).add_to(tx, account_id)
        return tx, updated

    try:
        taking = new_plan is not None or refunding or charged_back
        first_read = ids_read if taking else IdAllocation.unread(account_id)
        updated = sequences.write(account_id, build, first_read=first_read)
    except Conflict as error:
        raise Conflict("The payment changed meanwhile; read it again and retry") from error
    if change is not None and change.trigger is not None:
        run_pending_chunks(services, updated, change.trigger.value)
    if refunding or (charged_back and len(updated.refunds) > len(payment.refunds)):
        from webstore.payments.refunds import reverse_tax  # beside the partial refunds

        reverse_tax(services, updated, updated.refunds[-1])
    return updated


CHARGEBACK_REFERENCE = "chargeback"


def credit_chargeback(services: Services, payment: PaymentRecord) -> PaymentRecord:
    """The credit note of a chargeback that became final after it was recorded (a dispute
    lost): what was still refundable, in one transaction with its number; then the tax
    reversal. Once: a payment with a chargeback credit note, or nothing left, is returned as is."""
    if payment.status is not PaymentStatus.CHARGEBACK or payment.refundable_amount <= 0:
        return payment
    if any(r.reference == CHARGEBACK_REFERENCE for r in payment.refunds):
        return payment
    now = services.now()

    def build(ids: IdAllocation) -> tuple[Transaction, PaymentRecord]:
        updated = payment.model_copy(deep=True)
        updated.refunds.append(
            credit_note_for(ids, payment, payment.refundable_amount, CHARGEBACK_REFERENCE, now)
        )
        updated.updated_at = now
        tx = Transaction(services.table)
        PaymentRepository.add_change(
            tx, payment, updated, None, fails=Conflict("The payment changed meanwhile; read it again")
        )
        return tx, updated

    updated = SequenceRepository(services.table).write(payment.account_id, build)
    from webstore.payments.refunds import reverse_tax

    reverse_tax(services, updated, updated.refunds[-1])
    return updated


def credit_note_for(
    ids: IdAllocation, payment: PaymentRecord, amount: Decimal, reference: str, now: datetime
) -> Refund:
    """A refund of `amount` with its credit note, numbered from the store's credit series of
    `now`'s year in the refund's own transaction (`ids.add_to(tx)`)."""
    sequence, year = series_of(CREDIT_SERIES, now)
    return Refund(
        credit_note=DocumentNumber(year=year, number=ids.take(sequence)[0]),
        amount=amount,
        at=now,
        reference=reference,
        full=amount == payment.refundable_amount,
    )


def add_note(
    services: Services,
    account_id: int,
    transaction_id: str,
    note: str,
    audit: Callable[[PaymentRecord], Audit] | None = None,
) -> PaymentRecord:
    """Append a note (one conditional UpdateItem). With `audit` (the panel's): the payment read,
    then the note and `audit(payment)` in one transaction."""
    note = note.strip()
    if not note:
        raise Invalid("note must not be empty", field="note")
    added = PaymentNote(created_at=services.now(), note=note)
    repo = PaymentRepository(services.table)
    if audit is None:
        return repo.add_note(account_id, transaction_id, added)
    payment = repo.by_transaction(account_id, transaction_id)
    return repo.add_note_audited(payment, added, audit(payment))
