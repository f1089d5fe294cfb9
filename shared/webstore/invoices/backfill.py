"""Invoices for the payments recorded before invoices existed (docs/tax.md, "Payments from
before invoices"): each such payment, oldest first (by payment id, the order they were
recorded in), gets the next number of its year's series (the year it was paid in, UTC) and its
document key, in one transaction with the series' sequences item, exactly as a new payment
takes its number. Idempotent: a payment that has a number keeps it, so a second run (or a run
that stopped part-way and is started again) numbers only what is left, without gaps."""

from __future__ import annotations

import secrets

from webstore import contention
from webstore.errors import Conflict
from webstore.payments.core import take_invoice_number
from webstore.repo import Contention, Transaction
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.repo.sequences import SequenceRepository
from webstore.services import Services

PAGE = 100


def number_older_payments(services: Services, account_id: int) -> int:
    """Number every payment of the account that has no invoice; how many were numbered."""
    payments = PaymentRepository(services.table)
    numbered, first = 0, 1
    while page := payments.oldest_first(account_id, first, PAGE):
        for payment in page:
            if payment.invoice is None and number_one(services, payment):
                numbered += 1
        first = page[-1].id + 1
    return numbered


def number_one(services: Services, payment: PaymentRecord) -> bool:
    """Its invoice number, taken in one transaction with the sequences (False: it had one)."""
    sequences = SequenceRepository(services.table)
    for _ in contention.attempts():
        ids = sequences.read(payment.account_id)
        numbered = payment.model_copy(
            update={
                "invoice": take_invoice_number(ids, payment.created_at),
                "document_key": payment.document_key or payment.basket_ident or secrets.token_urlsafe(18),
            }
        )
        tx = Transaction(services.table)
        PaymentRepository.add_invoice(tx, numbered, fails=Conflict("The payment has an invoice already"))
        ids.add_to(tx)
        try:
            tx.commit()
        except Contention:  # another payment took the number meanwhile: read the series again
            continue
        except Conflict:
            return False
        return True
    raise Conflict("The store is busy; run the backfill again")
