"""Resending a payment's commands: queue its delivery commands again, as the catalog has them
now (an owner who fixed a broken command resends it), once per resend request.

The request carries a resend id (the panel's form makes one when it renders): the commands go
in the payment's plan `resend-{id}` with the same plan/chunk mechanism as fulfilment
(`payments.recording`), and the plan is written on condition that none of that key exists, so
a form posted twice, or retried after a lost answer, queues them once. The payment keeps who
resent and when (`PaymentRecord.resends`, at most MAX_RESENDS).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from webstore.catalog import CommandTrigger
from webstore.domain.payment_status import PaymentStatus
from webstore.errors import Conflict, Invalid
from webstore.payments import planning
from webstore.payments.recording import run_pending_chunks
from webstore.repo import Transaction, start_read
from webstore.repo.audit_log import Audit
from webstore.repo.payments import MAX_RESENDS, CommandResend, PaymentRecord, PaymentRepository
from webstore.repo.queue import QueueRepository
from webstore.repo.sequences import IdAllocation, SequenceRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services

_RESEND_ID = re.compile(r"^[0-9a-f]{32}$")
# Room the resend's transaction keeps for its own actions (the payment, the sequences).
_OWN_ACTIONS = 2


class _ResendRefused(Conflict):
    """The plan's condition failed: already resent under this id, or the payment changed."""


def plan_key(resend_id: str) -> str:
    return f"resend-{resend_id}"


def delivery_trigger(payment: PaymentRecord) -> CommandTrigger:
    """What delivered the payment: a renewal's commands for a renewal payment, else its purchase
    commands. Pure."""
    if CommandTrigger.PURCHASE.value not in payment.plans and CommandTrigger.RENEWAL.value in payment.plans:
        return CommandTrigger.RENEWAL
    return CommandTrigger.PURCHASE


def check_resendable(payment: PaymentRecord) -> None:
    """A refunded or charged-back payment has taken its packages back: nothing to deliver. Pure."""
    if payment.status is not PaymentStatus.COMPLETE:
        raise Conflict(
            f"A {payment.status} payment's commands cannot be resent; only a complete one's",
            field="status",
        )
    if len(payment.resends) >= MAX_RESENDS:
        raise Invalid(f"A payment's commands may be resent at most {MAX_RESENDS} times", field="resend_id")


def resend_commands(
    services: Services,
    account_id: int,
    transaction_id: str,
    resend_id: str,
    by: str,
    now: datetime,
    audit: Callable[[PaymentRecord, int], Audit] | None = None,
) -> tuple[PaymentRecord, bool]:
    """Queue the payment's delivery commands again; (the payment, whether this call queued
    them). The same `resend_id` again queues nothing. Reads the payment, the catalog and the id
    sequences at once, then one transaction (more for commands past its room), which holds
    `audit(payment, commands)` (the panel's entry) too."""
    if not _RESEND_ID.match(resend_id or ""):
        raise Invalid("resend_id must be 32 hex digits (the form makes one)", field="resend_id")
    key = plan_key(resend_id)
    view_read = start_read(StoreRepository(services.table).operator_view, account_id)
    sequences = SequenceRepository(services.table)
    ids_read = start_read(sequences.read, account_id)
    repo = PaymentRepository(services.table)
    payment = repo.by_transaction(account_id, transaction_id)
    if key in payment.plans:  # this request was answered before: finish what it left, if any
        run_pending_chunks(services, payment, key)
        return payment, False
    check_resendable(payment)
    trigger = delivery_trigger(payment)
    commands = planning.commands_for(payment.lines, view_read.result(), trigger, now)
    if not commands:
        raise Conflict(f"The payment's packages have no {trigger.value} commands to send", field="resend_id")
    room = planning.MAX_TRANSACTION_ACTIONS - _OWN_ACTIONS - bool(audit)

    def build(ids: IdAllocation) -> tuple[Transaction, PaymentRecord]:
        updated = payment.model_copy(deep=True)
        queued = planning.with_ids(commands, ids.take("command", len(commands)), payment.id)
        first = planning.plan_commands(updated, key, queued, room)
        resend = CommandResend(id=resend_id, by=by, at=now, commands=len(queued))
        updated.resends.append(resend)
        updated.updated_at = now
        planning.check_recordable(updated)
        tx = Transaction(services.table)
        PaymentRepository.add_resend(
            tx, updated, key, resend, fails=_ResendRefused("The payment changed meanwhile; try again")
        )
        QueueRepository(services.table).add_enqueue(tx, account_id, first)
        if audit is not None:
            audit(updated, len(queued)).add_to(tx, account_id)
        return tx, updated

    try:
        updated = sequences.write(account_id, build, first_read=ids_read)
    except _ResendRefused:
        current = repo.by_transaction(account_id, transaction_id)
        if key in current.plans:  # the same request, posted twice at once: the other queued them
            return current, False
        check_resendable(current)
        raise
    run_pending_chunks(services, updated, key)
    return updated, True
