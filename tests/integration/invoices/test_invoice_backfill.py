"""Payments recorded before invoices existed get their invoices from the backfill (scripts/
backfill_invoices.py, webstore.invoices.backfill): oldest first, each in its year's series,
after any number that series already gave; a second run numbers nothing; the invoice opens."""

from __future__ import annotations

from datetime import UTC, datetime

from functions.storefront import get_invoice
from scripts.backfill_invoices import main
from tests.integration.admin.money_support import pay, use_clock
from tests.support.demo import DemoStore
from tests.support.environment import TABLE
from tests.support.invocation import Invoke
from webstore import keys
from webstore.invoices import documents
from webstore.repo.payments import PaymentRecord, PaymentRepository


def as_before_invoices(demo: DemoStore, payment: PaymentRecord) -> None:
    """The payment as it was stored before invoices: no number, no document key."""
    older = payment.model_copy(update={"invoice": None, "document_key": ""})
    demo.table.put(PaymentRepository.item(older))


def numbers(demo: DemoStore, *payments: PaymentRecord) -> list[str]:
    found = [PaymentRepository(demo.table).get(1, p.id, consistent=True) for p in payments]
    return [p.invoice.invoice_label if p and p.invoice else "" for p in found]


def test_older_payments_are_numbered_in_order_once(demo: DemoStore, invoke: Invoke, capsys) -> None:  # type: ignore[no-untyped-def]
    clock = use_clock(datetime(2025, 12, 30, 10, tzinfo=UTC))
    a, b = pay("a"), pay("b")
    clock.now = datetime(2026, 1, 2, 10, tzinfo=UTC)
    c = pay("c")
    for payment in (a, b, c):
        as_before_invoices(demo, payment)
    demo.table.update(  # the series did not exist yet
        keys.key(keys.account_pk(1), keys.SEQUENCES_ITEM), "REMOVE invoice_2025, invoice_2026"
    )
    clock.now = datetime(2026, 1, 5, 10, tzinfo=UTC)
    d = pay("d")  # the first payment after the upgrade
    assert numbers(demo, a, b, c, d) == ["", "", "", "2026-00001"]
    assert documents.invoice_token(PaymentRepository(demo.table).get(1, a.id) or a) is None

    assert main(["--table", TABLE, "--account", "1"]) == 0
    assert "3 payments given an invoice" in capsys.readouterr().out
    assert numbers(demo, a, b, c, d) == ["2025-00001", "2025-00002", "2026-00002", "2026-00001"]
    assert main(["--table", TABLE, "--account", "1"]) == 0  # idempotent
    assert "0 payments given an invoice" in capsys.readouterr().out
    assert numbers(demo, a, b, c, d) == ["2025-00001", "2025-00002", "2026-00002", "2026-00001"]

    numbered = PaymentRepository(demo.table).get(1, a.id, consistent=True)
    assert numbered is not None and numbered.document_key
    page = invoke(get_invoice.handler, "GET", f"/invoices/{documents.invoice_token(numbered)}")
    assert page.status == 200 and "2025-00001" in page.body
