"""Payments and the players who made them, in the account partition.

A payment is `ACCOUNT#a`/`PAY#{id}` (ids dense from the `payment` sequence, so latest-first and
page N are key ranges), also indexed on GSI1 under its player (`PLAYERPAY#a#{username_id}`),
where the player item (`PLAYER#{id}`, GSI1SK `~PLAYER`) sorts last: one GSI Query gives a
player and their latest payments.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from pydantic import Field

from webstore import keys
from webstore.catalog import Model
from webstore.db import ConditionFailed, Item, Table, Transaction, from_item, to_item
from webstore.domain.gateways import MANUAL
from webstore.domain.invoices import DocumentNumber, Refund
from webstore.domain.payment_status import PaymentStatus
from webstore.errors import Conflict, Invalid, NotFound
from webstore.repo.audit_log import Audit
from webstore.repo.queue import QueuedCommand
from webstore.tax.model import PaymentTax

# Notes live in the payment's item: a cap keeps it well inside the table's item size limit.
MAX_NOTES = 50
# So do the records of commands resent (each with its command plan): the same reason.
MAX_RESENDS = 20


class PaymentLine(Model):
    package_id: int
    category_id: int
    name: str
    quantity: int = 1
    base_price: Decimal = Decimal(0)  # list price of one unit
    price: Decimal = Decimal(0)  # paid for the whole line
    variables: dict[str, str] = Field(default_factory=dict)
    username_id: int  # who receives it (the buyer, or the gift target)
    username: str
    uuid: str | None = None
    dynamic: bool = False  # a basket's dynamic package: no catalog entry, no commands
    subscription: bool = False  # a subscription package: the payment starts a recurring payment


class GiftCardUse(Model):
    card_number: str
    amount: Decimal


class PaymentNote(Model):
    created_at: datetime
    note: str


class CommandResend(Model):
    """Someone queued the payment's commands again (the panel): the plan `resend-{id}`."""

    id: str
    by: str
    at: datetime
    commands: int


class PaymentRecord(Model):
    """The stored payment, with what fulfilment needs to finish idempotently: the command
    plans (chunks of commands, one transaction each) and how many chunks are done."""

    id: int
    transaction_id: str
    account_id: int
    status: PaymentStatus = PaymentStatus.COMPLETE
    amount: Decimal
    currency: str
    gateway: str = MANUAL.name
    email: str = ""
    ip: str = ""
    country: str = ""
    username_id: int
    username: str
    uuid: str | None = None
    lines: list[PaymentLine]
    coupons: list[str] = Field(default_factory=list)
    giftcards: list[GiftCardUse] = Field(default_factory=list)
    creator_code: str = ""
    basket_ident: str | None = None
    checkout_attempt: str | None = None  # the attempt whose charge paid it (hosted checkout)
    # The subscription this payment started or renewed (webstore.recurring): its reference.
    recurring_payment_reference: str | None = None
    custom: dict[str, Any] | None = None
    # What the payment charged of tax and why (docs/tax-model.md); None: untaxed or recorded before.
    tax: PaymentTax | None = None
    notes: list[PaymentNote] = Field(default_factory=list)
    resends: list[CommandResend] = Field(default_factory=list)
    idempotency_key: str
    created_at: datetime
    updated_at: datetime
    plans: dict[str, list[list[QueuedCommand]]] = Field(default_factory=dict)
    chunks_done: dict[str, int] = Field(default_factory=dict)
    # Its invoice number (webstore.domain.invoices; None: recorded before invoices existed) and
    # the refunds given on it, each with its credit note.
    invoice: DocumentNumber | None = None
    refunds: list[Refund] = Field(default_factory=list)
    # The secret part of the invoice's link (webstore.invoices.documents): the basket's ident
    # for a checkout (the receipt's own secret), a random one for other payments.
    document_key: str = ""

    @property
    def refunded_amount(self) -> Decimal:
        return sum((r.amount for r in self.refunds), start=Decimal(0))

    @property
    def refundable_amount(self) -> Decimal:
        """What may still be given back (what the buyer paid through the gateway, less refunds)."""
        return max(self.amount - self.refunded_amount, Decimal(0))

    @property
    def partially_refunded(self) -> bool:
        return self.status is PaymentStatus.COMPLETE and bool(self.refunds)

    def pending_chunks(self, trigger: str) -> list[list[QueuedCommand]]:
        return self.plans.get(trigger, [])[self.chunks_done.get(trigger, 0) :]

    @property
    def status_id(self) -> int:
        return self.status.id

    @property
    def status_description(self) -> str:
        return self.status.description


_REFUNDS_AS_READ = " AND (attribute_not_exists(refunds) OR size(refunds) = :had_refunds)"


class PaymentRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    @staticmethod
    def item(payment: PaymentRecord) -> Item:
        return to_item(
            payment,
            keys.account_pk(payment.account_id),
            keys.payment_sk(payment.id),
            "payment",
            GSI1PK=keys.payments_of_player(payment.account_id, payment.username_id),
            GSI1SK=keys.payment_sk(payment.id),
            GSI2PK=keys.payments_of_status(payment.account_id, payment.status),
            GSI2SK=keys.payment_time_gsi2sk(payment.created_at, payment.id),
            # a top-level list the panel's search by package filters on (`contains`)
            package_ids=sorted({line.package_id for line in payment.lines if not line.dynamic}),
        )

    @staticmethod
    def key(account_id: int, payment_id: int) -> dict[str, str]:
        return keys.key(keys.account_pk(account_id), keys.payment_sk(payment_id))

    def get(self, account_id: int, payment_id: int, *, consistent: bool = False) -> PaymentRecord | None:
        item = self.table.get(self.key(account_id, payment_id), consistent=consistent)
        return from_item(PaymentRecord, item) if item else None

    def by_transaction(self, account_id: int, transaction_id: str) -> PaymentRecord:
        """The payment a transaction id names, in this account (NotFound otherwise)."""
        payment = self.get(account_id, keys.payment_id_of(transaction_id), consistent=True)
        if payment is None or payment.transaction_id != transaction_id:
            raise NotFound("Payment not found")
        return payment

    def latest(self, account_id: int, limit: int) -> list[PaymentRecord]:
        items, _ = self.table.query(
            keys.account_pk(account_id),
            sk_between=(keys.payment_sk(1), keys.payment_sk(keys.INT32_MAX)),
            forward=False,
            limit=limit,
        )
        return [from_item(PaymentRecord, i) for i in items]

    def id_range(self, account_id: int, first: int, last: int) -> list[PaymentRecord]:
        """Payments first..last (ids), latest first: one Query of at most last-first+1 items."""
        items, _ = self.table.query(
            keys.account_pk(account_id),
            sk_between=(keys.payment_sk(first), keys.payment_sk(last)),
            forward=False,
            limit=last - first + 1,
        )
        return [from_item(PaymentRecord, i) for i in items]

    def oldest_first(self, account_id: int, first: int, limit: int) -> list[PaymentRecord]:
        """Payments from id `first` on, oldest (lowest id) first: one Query of at most `limit`."""
        items, _ = self.table.query(
            keys.account_pk(account_id),
            sk_between=(keys.payment_sk(first), keys.payment_sk(keys.INT32_MAX)),
            forward=True,
            limit=limit,
        )
        return [from_item(PaymentRecord, i) for i in items]

    def payment_count(self, account_id: int) -> int:
        item = self.table.get(keys.key(keys.account_pk(account_id), keys.SEQUENCES_ITEM))
        return int((item or {}).get("payment", 0))

    # --- writes ----------------------------------------------------------------------------

    @staticmethod
    def add_order(tx: Transaction, payment: PaymentRecord) -> None:
        """The order record of the payment's idempotency key (absent: someone recording the same
        order first is contention, read again). The payment's id comes from `IdAllocation`, taken
        in the same transaction."""
        tx.put(
            {
                **keys.key(keys.account_pk(payment.account_id), keys.order_sk(payment.idempotency_key)),
                "entity": "order",
                "payment_id": payment.id,
                # which attempt's charge paid it: a later attempt reads it with the basket
                "checkout_attempt": payment.checkout_attempt,
            },
            condition="attribute_not_exists(PK)",
        )

    @staticmethod
    def add_payment(tx: Transaction, payment: PaymentRecord) -> None:
        tx.put(PaymentRepository.item(payment), condition="attribute_not_exists(PK)")

    def set_tax_transaction(self, account_id: int, payment_id: int, transaction_id: str) -> None:
        """Keep the Stripe Tax transaction made after the payment was recorded (a retry)."""
        self.table.update(
            self.key(account_id, payment_id),
            "SET #tax.stripe_transaction_id = :txn",
            condition="attribute_exists(#tax.stripe_calculation_id)",
            names={"#tax": "tax"},
            values={":txn": transaction_id},
        )

    @staticmethod
    def add_invoice(tx: Transaction, payment: PaymentRecord, fails: Conflict) -> None:
        """Give a payment recorded before invoices its invoice number and document key, once
        (refused with `fails` when it has one already)."""
        assert payment.invoice is not None
        tx.update(
            PaymentRepository.key(payment.account_id, payment.id),
            "SET invoice = :invoice, document_key = :key",
            condition=(
                "attribute_exists(PK) AND (attribute_not_exists(invoice) OR attribute_type(invoice, :null))"
            ),
            values={":invoice": payment.invoice.model_dump(), ":key": payment.document_key, ":null": "NULL"},
            fails=fails,
        )

    @staticmethod
    def add_chunk_done(tx: Transaction, payment: PaymentRecord, trigger: str, done: int) -> None:
        """Advance `chunks_done.trigger` from `done` (a chunk is queued exactly once)."""
        tx.update(
            PaymentRepository.key(payment.account_id, payment.id),
            "SET chunks_done.#t = :next",
            condition="chunks_done.#t = :done",
            names={"#t": trigger},
            values={":next": done + 1, ":done": done},
        )

    @staticmethod
    def add_change(
        tx: Transaction,
        before: PaymentRecord,
        after: PaymentRecord,
        new_plan: str | None,
        fails: Conflict,
    ) -> None:
        """Write `after`'s status, owner and (when `new_plan` names a trigger) that trigger's
        command plan; conditional on the status and owner read, and on the plan being new."""
        names: dict[str, str] = {"#status": "status"}
        values: dict[str, Any] = {
            ":status": after.status,
            ":old_status": before.status,
            ":old_player": before.username_id,
            ":now": after.updated_at,
        }
        # its GSI2 partition follows the status (a payment from before GSI2 gets its time key)
        sets = [
            "#status = :status",
            "updated_at = :now",
            "GSI2PK = :status_partition",
            "GSI2SK = if_not_exists(GSI2SK, :time_key)",
        ]
        values[":status_partition"] = keys.payments_of_status(after.account_id, after.status)
        values[":time_key"] = keys.payment_time_gsi2sk(before.created_at, before.id)
        condition = "#status = :old_status AND username_id = :old_player"
        if new_plan is not None:
            names["#t"] = new_plan
            sets += ["plans.#t = :plan", "chunks_done.#t = :done"]
            values[":plan"] = [[c.model_dump() for c in chunk] for chunk in after.plans[new_plan]]
            values[":done"] = after.chunks_done[new_plan]
            condition += " AND attribute_not_exists(plans.#t)"
        if after.username_id != before.username_id:
            sets += [
                "username_id = :uid",
                "username = :uname",
                "#uuid = :uuid",
                "GSI1PK = :g",
                "#lines = :lines",
            ]
            names.update({"#uuid": "uuid", "#lines": "lines"})
            values.update(
                {
                    ":uid": after.username_id,
                    ":uname": after.username,
                    ":uuid": after.uuid,
                    ":g": keys.payments_of_player(after.account_id, after.username_id),
                    ":lines": [line.model_dump() for line in after.lines],
                }
            )
        if after.refunds != before.refunds:  # a refund's credit note, on the refunds as read
            sets.append("refunds = :refunds")
            values[":refunds"] = [r.model_dump() for r in after.refunds]
            condition += _REFUNDS_AS_READ
            values[":had_refunds"] = len(before.refunds)
        tx.update(
            PaymentRepository.key(before.account_id, before.id),
            "SET " + ", ".join(sets),
            condition=condition,
            names=names,
            values=values,
            fails=fails,
        )

    @staticmethod
    def add_refund(tx: Transaction, payment: PaymentRecord, refund: Refund, fails: Conflict) -> None:
        """Append a partial refund (with its credit note) to a payment still complete, on the
        refunds as read (so two refunds never both count the same money) and within what is
        left to refund."""
        tx.update(
            PaymentRepository.key(payment.account_id, payment.id),
            "SET refunds = list_append(if_not_exists(refunds, :empty), :refund), updated_at = :now",
            condition="attribute_exists(PK) AND #status = :complete" + _REFUNDS_AS_READ,
            names={"#status": "status"},
            values={
                ":empty": [],
                ":refund": [refund.model_dump()],
                ":now": refund.at,
                ":complete": PaymentStatus.COMPLETE,
                ":had_refunds": len(payment.refunds),
            },
            fails=fails,
        )

    @staticmethod
    def add_plan(
        tx: Transaction,
        account_id: int,
        payment_id: int,
        key: str,
        chunks: list[list[QueuedCommand]],
        done: int,
    ) -> None:
        """Store a new command plan `key` on a payment (an expiry's commands), `done` chunks of it
        queued in this transaction; a plan of that key already there: contention (planned once)."""
        tx.update(
            PaymentRepository.key(account_id, payment_id),
            "SET plans.#t = :plan, chunks_done.#t = :done",
            condition="attribute_exists(PK) AND attribute_not_exists(plans.#t)",
            names={"#t": key},
            values={":plan": [[c.model_dump() for c in chunk] for chunk in chunks], ":done": done},
        )

    @staticmethod
    def add_resend(
        tx: Transaction, payment: PaymentRecord, plan: str, resend: CommandResend, fails: Conflict
    ) -> None:
        """Store the resend's command plan `plan` (its first chunk queued in `tx`) and its record,
        on condition that the payment is still complete, has no plan of that key (a resend is
        queued once per id) and holds fewer than MAX_RESENDS resends."""
        tx.update(
            PaymentRepository.key(payment.account_id, payment.id),
            "SET plans.#t = :plan, chunks_done.#t = :done, updated_at = :now,"
            " resends = list_append(if_not_exists(resends, :empty), :resend)",
            condition="attribute_exists(PK) AND #status = :complete AND attribute_not_exists(plans.#t)"
            " AND (attribute_not_exists(resends) OR size(resends) < :max)",
            names={"#t": plan, "#status": "status"},
            values={
                ":plan": [[c.model_dump() for c in chunk] for chunk in payment.plans[plan]],
                ":done": payment.chunks_done[plan],
                ":now": resend.at,
                ":empty": [],
                ":resend": [resend.model_dump()],
                ":complete": PaymentStatus.COMPLETE,
                ":max": MAX_RESENDS,
            },
            fails=fails,
        )

    def add_note_audited(self, payment: PaymentRecord, note: PaymentNote, audit: Audit) -> PaymentRecord:
        """Append a note to `payment` (as read) with its audit entry: one transaction, on
        condition that the payment still has the notes it was read with (Conflict otherwise;
        Invalid past MAX_NOTES)."""
        if len(payment.notes) >= MAX_NOTES:
            raise Invalid(f"A payment holds at most {MAX_NOTES} notes", field="note")
        tx = Transaction(self.table)
        tx.update(
            self.key(payment.account_id, payment.id),
            "SET notes = list_append(if_not_exists(notes, :empty), :note)",
            condition="transaction_id = :txn AND "
            + (
                "size(notes) = :had"
                if payment.notes
                else "(attribute_not_exists(notes) OR size(notes) = :had)"
            ),
            values={
                ":empty": [],
                ":note": [note.model_dump()],
                ":txn": payment.transaction_id,
                ":had": len(payment.notes),
            },
            fails=Conflict("The payment changed meanwhile; read it again and retry"),
        )
        audit.add_to(tx, payment.account_id)
        tx.commit()
        return payment.model_copy(update={"notes": [*payment.notes, note]})

    def add_note(self, account_id: int, transaction_id: str, note: PaymentNote) -> PaymentRecord:
        """Append a note: one conditional UpdateItem (NotFound unless the transaction id matches;
        Invalid past MAX_NOTES, which keeps the item well inside the table's size limit)."""
        key = self.key(account_id, keys.payment_id_of(transaction_id))
        try:
            item = self.table.update(
                key,
                "SET notes = list_append(if_not_exists(notes, :empty), :note)",
                condition="transaction_id = :txn AND (attribute_not_exists(notes) OR size(notes) < :max)",
                values={
                    ":empty": [],
                    ":note": [note.model_dump()],
                    ":txn": transaction_id,
                    ":max": MAX_NOTES,
                },
                return_values="ALL_NEW",
            )
        except ConditionFailed as error:
            current = self.table.get(key, consistent=True)  # only on failure: which condition?
            if current is not None and current.get("transaction_id") == transaction_id:
                raise Invalid(f"A payment holds at most {MAX_NOTES} notes", field="note") from error
            raise NotFound("Payment not found") from error
        return from_item(PaymentRecord, item)
