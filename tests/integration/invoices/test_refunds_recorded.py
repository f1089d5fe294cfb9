"""Refunds recorded from the panel, full and partial, each with its credit note (numbered in
the refund's transaction, a series of its own), the day's figures, the audit entry and the tax
reversal hook; bad amounts are refused naming the field."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from functions.admin import get_payment_page, refund_payment
from tests.integration.admin.money_support import START, pay, use_clock
from tests.support.demo import DemoStore
from tests.support.panel import PanelClient, signed_in
from webstore.admin.roles import Role
from webstore.domain.invoices import Refund
from webstore.domain.payment_status import PaymentStatus
from webstore.payments import refunds
from webstore.repo.daily_stats import day_key, figures_of, utc_day
from webstore.repo.payments import PaymentRecord, PaymentRepository


@pytest.fixture(autouse=True)
def clock(demo: DemoStore) -> None:
    use_clock()


@pytest.fixture
def reversals(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Refund]]:
    """The tax reversal hook's calls: (transaction id, refund)."""
    calls: list[tuple[str, Refund]] = []
    original = refunds.reverse_tax

    def record(services: Any, payment: PaymentRecord, refund: Refund) -> None:
        calls.append((payment.transaction_id, refund))
        original(services, payment, refund)

    monkeypatch.setattr(refunds, "reverse_tax", record)
    return calls


def stored(demo: DemoStore, payment: PaymentRecord) -> PaymentRecord:
    found = PaymentRepository(demo.table).get(1, payment.id, consistent=True)
    assert found is not None
    return found


@pytest.fixture
def owner(demo: DemoStore) -> PanelClient:
    return signed_in(Role.OWNER)


def refund(owner: PanelClient, payment: PaymentRecord, amount: str) -> Any:
    form = {"confirm": "yes", "amount": amount}
    return owner.post(refund_payment.handler, f"/payments/{payment.transaction_id}/refund", form)


def test_a_partial_then_the_rest_each_get_a_credit_note(
    demo: DemoStore, owner: PanelClient, reversals: list[tuple[str, Refund]]
) -> None:
    payment = pay("vip", "Steve", 1, "10.00")
    other = pay("other", "Alex", 10, "2.50")
    assert payment.invoice and payment.invoice.invoice_label == "2026-00001"
    assert other.invoice and other.invoice.invoice_label == "2026-00002"

    asked = owner.post(refund_payment.handler, f"/payments/{payment.transaction_id}/refund", {})
    assert asked.status == 200 and 'name="amount"' in asked.body and "10.00" in asked.body

    partly = refund(owner, payment, "3.50")
    assert partly.status == 303 and partly.headers["location"].endswith("done=partly-refunded")
    after = stored(demo, payment)
    assert after.status is PaymentStatus.COMPLETE and after.partially_refunded
    assert [(r.credit_note.credit_label, r.amount, r.full) for r in after.refunds] == [
        ("CN-2026-00001", Decimal("3.50"), False)
    ]
    assert after.refundable_amount == Decimal("6.50")
    page = owner.get(get_payment_page.handler, f"/payments/{payment.transaction_id}")
    assert "partially refunded" in page.body and "CN-2026-00001" in page.body

    full = refund(owner, payment, "")  # blank: all that is left
    assert full.status == 303 and full.headers["location"].endswith("done=refunded")
    after = stored(demo, payment)
    assert after.status is PaymentStatus.REFUND
    assert [(r.credit_note.credit_label, r.amount, r.full) for r in after.refunds] == [
        ("CN-2026-00001", Decimal("3.50"), False),
        ("CN-2026-00002", Decimal("6.50"), True),
    ]
    assert [(txn, r.amount) for txn, r in reversals] == [
        (payment.transaction_id, Decimal("3.50")),
        (payment.transaction_id, Decimal("6.50")),
    ]
    day = demo.table.get(day_key(1, utc_day(START)), consistent=True)
    figures = figures_of(utc_day(START), day)
    assert figures.refunds == 1 and figures.refunded == {"USD": Decimal("10.00")}  # nothing counted twice
    assert figures.revenue == {"USD": Decimal("12.50")}


def test_a_partial_refund_of_all_that_is_left_is_the_full_refund(demo: DemoStore, owner: PanelClient) -> None:
    payment = pay("whole", "Steve", 10, "2.50")
    assert refund(owner, payment, "2.50").headers["location"].endswith("done=refunded")
    after = stored(demo, payment)
    assert after.status is PaymentStatus.REFUND and [r.full for r in after.refunds] == [True]


@pytest.mark.parametrize(
    ("amount", "says"),
    [
        ("lots", "amount is a number"),
        ("0", "amount must be more than 0"),
        ("-1", "amount must be more than 0"),
        ("1.234", "more decimals than USD allows"),
        ("99", "amount is at most 2.50 USD"),
    ],
)
def test_a_bad_amount_is_refused_naming_it_and_records_nothing(
    demo: DemoStore, owner: PanelClient, amount: str, says: str
) -> None:
    payment = pay("bad", "Steve", 10, "2.50")
    answer = refund(owner, payment, amount)
    assert answer.status == 422 and says in answer.body
    after = stored(demo, payment)
    assert after.refunds == [] and after.status is PaymentStatus.COMPLETE


def test_a_refunded_payment_is_not_refunded_again(demo: DemoStore, owner: PanelClient) -> None:
    payment = pay("twice", "Steve", 10, "2.50")
    refund(owner, payment, "")
    again = refund(owner, payment, "1")
    assert again.status == 409 and "cannot be refunded" in again.body
    assert len(stored(demo, payment).refunds) == 1
