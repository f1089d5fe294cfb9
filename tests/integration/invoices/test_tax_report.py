"""Panel → Tax report and its CSV through the real handlers: by buyer country and rate, the
invoices of the quarter (net sales, tax) and its credit notes; the CSV sums to the payments;
a refund counts in the quarter it was given; bad periods are refused naming the field."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from functions.admin import get_tax_report, get_tax_report_csv, refund_payment
from tests.support.clock import Clock
from tests.support.demo import DemoStore
from tests.support.panel import PanelClient, signed_in
from webstore.admin.roles import Role
from webstore.domain.gateways import SANDBOX
from webstore.payments import recording
from webstore.payments.order import Order, OrderLine
from webstore.repo.payments import PaymentRecord
from webstore.services import get_services

D = Decimal


@pytest.fixture
def clock(demo: DemoStore) -> Clock:
    clock = Clock(datetime(2026, 1, 10, 12, tzinfo=UTC))
    get_services().clock = clock
    return clock


@pytest.fixture
def owner(demo: DemoStore) -> PanelClient:
    return signed_in(Role.OWNER)


def sale(key: str, country: str, net: str, paid: str) -> PaymentRecord:
    """One line of `net`, `paid` charged (tax added on top: the difference)."""
    order = Order(
        account_id=1,
        idempotency_key=key,
        username="Steve",
        email="steve@example.test",
        country=country,
        lines=[OrderLine(package_id=10, paid_price=D(net))],
        price_paid=D(paid),
        currency="USD",
        gateway=SANDBOX.name,
    )
    return recording.fulfil(get_services(), order)


def rows_of(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_the_quarter_by_country_and_rate_and_the_csv_sums_to_the_payments(
    demo: DemoStore, clock: Clock, owner: PanelClient
) -> None:
    paid = [
        sale("fr1", "FR", "10.00", "12.00"),  # 20%
        sale("fr2", "FR", "5.00", "6.00"),  # 20%
        sale("de1", "DE", "10.00", "11.90"),  # 19%
        sale("us1", "US", "4.00", "4.00"),  # no tax
    ]
    clock.now = datetime(2026, 3, 31, 23, 59, tzinfo=UTC)
    owner = signed_in(Role.OWNER, email="march@store1.test")  # a session of the day
    half = {"confirm": "yes", "amount": "6.00"}  # in Q1: half of fr1 (5.00 net, 1.00 tax)
    refunded = owner.post(refund_payment.handler, f"/payments/{paid[0].transaction_id}/refund", half)
    assert refunded.headers["location"].endswith("done=partly-refunded")
    clock.now = datetime(2026, 4, 2, 9, tzinfo=UTC)
    owner = signed_in(Role.OWNER, email="april@store1.test")
    sale("fr-q2", "FR", "10.00", "12.00")  # Q2: not in Q1's report
    full = owner.post(
        refund_payment.handler, f"/payments/{paid[2].transaction_id}/refund", {"confirm": "yes"}
    )
    assert full.headers["location"].endswith("done=refunded")  # Q2: the German one, in full

    answer = owner.get(get_tax_report_csv.handler, "/tax-report.csv", {"quarter": "2026-Q1"})
    assert answer.status == 200, answer.body
    assert answer.headers["content-type"].startswith("text/csv")
    assert 'filename="tax-report-2026-01-01-2026-03-31.csv"' in answer.headers["content-disposition"]
    rows = rows_of(answer.body)
    by_key = {(r["country"], r["rate_percent"]): r for r in rows}
    assert set(by_key) == {("DE", "19"), ("FR", "20"), ("US", "0"), ("All", "")}
    fr = by_key[("FR", "20")]
    assert (fr["invoices"], fr["net_sales"], fr["tax"]) == ("2", "15.00", "3.00")
    assert (fr["credit_notes"], fr["refunded_net"], fr["refunded_tax"]) == ("1", "5.00", "1.00")
    assert (fr["net_after_refunds"], fr["tax_after_refunds"]) == ("10.00", "2.00")
    assert by_key[("DE", "19")]["tax"] == "1.90" and by_key[("DE", "19")]["credit_notes"] == "0"
    total = by_key[("All", "")]
    q1 = paid  # the quarter's payments: their amounts are net + tax, to the cent
    assert D(total["net_sales"]) + D(total["tax"]) == sum(p.amount for p in q1)
    assert D(total["net_sales"]) == sum(
        (D(r["net_sales"]) for r in rows if r["country"] != "All"), start=D(0)
    )

    q2 = rows_of(owner.get(get_tax_report_csv.handler, "/tax-report.csv", {"quarter": "2026-Q2"}).body)
    de = {(r["country"], r["rate_percent"]): r for r in q2}[("DE", "19")]
    assert (de["invoices"], de["credit_notes"], de["refunded_net"], de["refunded_tax"]) == (
        "0",
        "1",
        "10.00",
        "1.90",
    )  # the refund counts when it was given, against the invoice of Q1

    page = owner.get(get_tax_report.handler, "/tax-report", {"quarter": "2026-Q1"})
    assert page.status == 200 and 'id="tax-report"' in page.body and "<td>15.00 USD</td>" in page.body
    assert 'href="/tax-report.csv?quarter=2026-Q1"' in page.body
    ranged = owner.get(get_tax_report.handler, "/tax-report", {"from": "2026-01-01", "to": "2026-01-31"})
    assert ranged.status == 200 and "2026-01-01 to 2026-01-31" in ranged.body


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ({"quarter": "2026-Q5"}, "quarter is a year and a quarter"),
        ({"from": "yesterday", "to": "2026-01-01"}, "from must be a date"),
        ({"from": "2026-02-01", "to": "2026-01-01"}, "to must not be before from"),
        ({"from": "2024-01-01", "to": "2026-01-01"}, "a range is at most 366 days"),
    ],
)
def test_a_bad_period_is_refused_naming_it(
    demo: DemoStore, clock: Clock, owner: PanelClient, query: dict[str, str], says: str
) -> None:
    page = owner.get(get_tax_report.handler, "/tax-report", query)
    assert page.status == 422 and says in page.body
    file = owner.get(get_tax_report_csv.handler, "/tax-report.csv", query)
    assert file.status == 422 and says in file.body
