"""Invoice and credit-note numbers, and the refunds a payment records (docs/tax.md).

Every paid payment (a checkout, a manual payment, a renewal, a tier upgrade) gets an invoice
number from its store's series of the year it was paid in (UTC): `invoice_<year>` in the
account's sequences item, taken in the payment's own transaction like its id
(`payments.core.take_invoice_number`). Each refund, full or partial, gets a credit note from a
separate series, `credit_<year>`, taken in the refund's transaction; a credit note names the
invoice it corrects. A transaction that fails spends no number, so each series is dense (no
gaps) and a number is never handed out twice.

Shown as `2026-00017` (invoices) and `CN-2026-00003` (credit notes): the year and the number
in the year's series, unique within the store.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from webstore.model import Model

INVOICE_SERIES = "invoice"
CREDIT_SERIES = "credit"
CREDIT_PREFIX = "CN"


def series_of(kind: str, moment: datetime) -> tuple[str, int]:
    """(sequence name, year) of the `kind` series a document made at `moment` is numbered in."""
    year = moment.astimezone(UTC).year
    return f"{kind}_{year}", year


class DocumentNumber(Model):
    """A number in one of the store's yearly series."""

    year: int
    number: int

    @property
    def invoice_label(self) -> str:
        return f"{self.year}-{self.number:05d}"

    @property
    def credit_label(self) -> str:
        return f"{CREDIT_PREFIX}-{self.year}-{self.number:05d}"


class Refund(Model):
    """Money given back on a payment, with its credit note. `amount` is gross (what the buyer
    gets back, tax included); the tax it reverses is worked out from the payment's tax lines
    in proportion (webstore.invoices.taxes)."""

    credit_note: DocumentNumber
    amount: Decimal
    at: datetime
    # What made it: the processor's refund id (a Stripe `re_…`), or `panel:<n>` / `status`
    # for a refund recorded in the panel or by a status change; refunds are recorded once per
    # reference.
    reference: str
    full: bool = False  # the refund that moved the payment to status refund (the rest of it)
