"""A chargeback reverses the sale (docs/tax.md, "Chargebacks"): a final chargeback (set through
the plugin API, or a dispute lost in Stripe: test_stripe_webhook.py) gets a credit note for what
was left of the payment, the tax report counts it as given back in its period, and the
payment's credit notes add up to its invoice; a second status change issues none."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from decimal import Decimal as D

from functions.admin import get_tax_report_csv
from functions.operator import update_payment
from tests.integration.invoices.test_tax_report import sale
from tests.integration.operator.support import secret_headers
from tests.support.clock import Clock
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.panel import signed_in
from webstore.admin.roles import Role
from webstore.payments.changes import CHARGEBACK_REFERENCE
from webstore.repo.payments import PaymentRepository
from webstore.services import get_services


def status(invoke: Invoke, demo: DemoStore, txn: str, value: str) -> None:
    answer = invoke(
        update_payment.handler,
        "PUT",
        f"/payments/{txn}",
        headers=secret_headers(demo.server_secret),
        body={"status": value},
    )
    assert answer.status == 200, answer.body


def test_a_chargeback_gets_a_credit_note_and_the_report_reverses_the_sale(
    demo: DemoStore, invoke: Invoke
) -> None:
    clock = Clock(datetime(2026, 2, 10, 12, tzinfo=UTC))
    get_services().clock = clock
    payment = sale("fr1", "FR", "10.00", "12.00")  # 20% on top
    kept = sale("fr2", "FR", "5.00", "6.00")
    clock.now = datetime(2026, 4, 3, 9, tzinfo=UTC)  # charged back in Q2
    status(invoke, demo, payment.transaction_id, "chargeback")
    status(invoke, demo, payment.transaction_id, "chargeback")  # again: nothing more
    stored = PaymentRepository(demo.table).get(1, payment.id, consistent=True)
    assert stored is not None and len(stored.refunds) == 1
    (note,) = stored.refunds
    assert (note.reference, note.amount, note.full) == (CHARGEBACK_REFERENCE, D("12.00"), True)
    assert note.credit_note.credit_label == "CN-2026-00001"

    owner = signed_in(Role.OWNER)
    report = owner.get(get_tax_report_csv.handler, "/tax-report.csv", {"quarter": "2026-Q2"}).body
    fr = {(r["country"], r["rate_percent"]): r for r in csv.DictReader(io.StringIO(report))}[("FR", "20")]
    assert (fr["invoices"], fr["credit_notes"], fr["refunded_net"], fr["refunded_tax"]) == (
        "0",
        "1",
        "10.00",
        "2.00",
    )
    q1 = owner.get(get_tax_report_csv.handler, "/tax-report.csv", {"quarter": "2026-Q1"}).body
    first = {(r["country"], r["rate_percent"]): r for r in csv.DictReader(io.StringIO(q1))}[("FR", "20")]
    assert (first["invoices"], first["tax"]) == ("2", "3.00")  # the sales stand in their quarter
    assert kept.refunds == []
