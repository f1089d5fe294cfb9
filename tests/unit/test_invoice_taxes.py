"""The records' one reader of a payment's tax (webstore.invoices.taxes): the checkout's stored
calculation when there is one, else derived from the lines and what was paid; and the credit
notes' split, which adds up to the invoice to the cent however the refunds fall."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from webstore.catalog import Tax, TaxCalculation, TaxMode
from webstore.domain.invoices import DocumentNumber, Refund
from webstore.invoices.taxes import payment_taxes, refund_taxes
from webstore.repo.payments import PaymentLine, PaymentRecord
from webstore.tax.model import LineTax, PaymentTax

AT = datetime(2026, 5, 1, tzinfo=UTC)
D = Decimal


def line(price: str, name: str = "VIP") -> PaymentLine:
    return PaymentLine(
        package_id=1, category_id=1, name=name, price=D(price), username_id=1, username="Steve"
    )


def payment(amount: str, *prices: str, **extra: object) -> PaymentRecord:
    return PaymentRecord(
        id=1,
        transaction_id="tbx-1",
        account_id=1,
        amount=D(amount),
        currency="EUR",
        username_id=1,
        username="Steve",
        lines=[line(p) for p in prices],
        idempotency_key="k",
        created_at=AT,
        updated_at=AT,
        invoice=DocumentNumber(year=2026, number=1),
        **extra,  # type: ignore[arg-type]
    )


def test_the_stored_calculation_is_read_as_it_is() -> None:
    stored = PaymentTax(
        calculation=TaxCalculation.STRIPE_TAX,
        inclusive=False,
        country="DE",
        currency="EUR",
        lines=[LineTax(net=D("10.00"), rate=D(19), tax=D("1.90"), gross=D("11.90"), reverse_charge=False)],
        net=D("10.00"),
        tax=D("1.90"),
        gross=D("11.90"),
        vat_id="DE123456789",
        reverse_charge=False,
    )
    taxes = payment_taxes(payment("11.90", "10.00", tax=stored), Tax())
    assert (taxes.country, taxes.vat_id, taxes.net, taxes.tax, taxes.gross) == (
        "DE",
        "DE123456789",
        D("10.00"),
        D("1.90"),
        D("11.90"),
    )
    assert taxes.by_rate() == {D(19): (D("10.00"), D("1.90"))}


def test_tax_on_top_is_derived_from_what_was_paid_and_shared_by_line() -> None:
    taxes = payment_taxes(payment("12.00", "6.67", "3.33"), Tax(mode=TaxMode.EXCLUSIVE, rate=D(20)))
    assert [ln.tax for ln in taxes.lines] == [D("1.33"), D("0.67")]  # 2.00 in proportion, to the cent
    assert taxes.gross == D("12.00") and taxes.tax == D("2.00")


def test_no_tax_means_net_is_gross() -> None:
    taxes = payment_taxes(payment("5.00", "5.00"), Tax())
    assert (taxes.net, taxes.tax, taxes.gross) == (D("5.00"), D(0), D("5.00"))


def test_credit_notes_add_up_to_the_invoice() -> None:
    paid = payment("10.00", "7.00", "1.33")  # 1.67 tax added on top
    taxes = payment_taxes(paid, Tax(mode=TaxMode.EXCLUSIVE, rate=D(20)))
    amounts = [D("3.33"), D("3.33"), D("3.34")]
    paid.refunds = [
        Refund(
            credit_note=DocumentNumber(year=2026, number=i + 1),
            amount=a,
            at=AT,
            reference=str(i),
            full=i == 2,
        )
        for i, a in enumerate(amounts)
    ]
    given = [refund_taxes(taxes, paid, i) for i in range(3)]
    assert [g.gross for g in given[:2]] == amounts[:2]
    assert sum(g.tax for g in given) == taxes.tax and sum(g.net for g in given) == taxes.net
