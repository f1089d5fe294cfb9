"""Renewals taxed by the buyer's country (docs/tax-model.md, "Renewals"): a VIP subscription
(4.99 a month) bought from France with the store's manual rates, then France's rate changed
before the renewal: the renewal is taxed for France at the new rate, keeps the agreed price
(inclusive: the same 4.99 with the new tax inside; exclusive: 4.99 plus the new tax), carries
the first payment's evidence, and its invoice shows the lines."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal as D

import pytest
import time_machine

from functions.storefront import get_invoice
from tests.integration.storefront.test_checkout_pages import brand
from tests.integration.storefront.test_checkout_tax import billing
from tests.integration.storefront.test_pay_prices_now import basket_with
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore.catalog import Tax, TaxCalculation, TaxMode
from webstore.invoices import documents
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.subscriptions.processor import OutcomeKind
from webstore.tax.rates import EU_STANDARD_RATES

from .support import ACCOUNT, pay_form, recurring, run

START = datetime(2026, 6, 1, 12, tzinfo=UTC)
RENEWAL = datetime(2026, 7, 1, 12, tzinfo=UTC)

EXPECTED = {  # mode -> (first: tax, charged), (renewal at 21%: tax, charged)
    TaxMode.EXCLUSIVE: ((D("1.00"), D("5.99")), (D("1.05"), D("6.04"))),
    TaxMode.INCLUSIVE: ((D("0.83"), D("4.99")), (D("0.87"), D("4.99"))),
}


def rates(demo: DemoStore, mode: TaxMode, **changed: D) -> None:
    table = {**EU_STANDARD_RATES, **changed}
    brand(demo, tax=Tax(mode=mode, calculation=TaxCalculation.MANUAL, rates=table, origin_country="DE"))


def latest(demo: DemoStore) -> PaymentRecord:
    (payment,) = PaymentRepository(demo.table).latest(ACCOUNT, 1)
    return payment


@pytest.mark.parametrize("mode", [TaxMode.EXCLUSIVE, TaxMode.INCLUSIVE])
def test_a_renewal_is_taxed_for_the_first_payments_country_at_the_rate_of_the_day(
    demo: DemoStore, invoke: Invoke, mode: TaxMode
) -> None:
    (first_tax, first_paid), (renewal_tax, renewal_paid) = EXPECTED[mode]
    rates(demo, mode)
    with time_machine.travel(START, tick=False) as traveller:
        ident = basket_with(invoke, demo, {"package_id": 1})
        assert billing(invoke, ident, "FR", "FR").status == 303
        assert pay_form(invoke, ident).status == 303
        first = latest(demo)
        assert first.tax is not None and (first.tax.tax, first.amount) == (first_tax, first_paid)

        rates(demo, mode, FR=D("21"))  # France's rate changes before the renewal
        traveller.move_to(RENEWAL)
        [outcome] = run(RENEWAL).outcomes
        assert outcome.kind is OutcomeKind.RENEWAL_CHARGED, outcome.describe()

    renewal = latest(demo)
    assert renewal.recurring_payment_reference == first.transaction_id and renewal.id != first.id
    stored = renewal.tax
    assert stored is not None
    assert (stored.country, stored.tax, renewal.amount) == ("FR", renewal_tax, renewal_paid)
    assert [line.rate for line in stored.lines] == [D("21")]
    assert stored.inclusive == (mode is TaxMode.INCLUSIVE)
    assert stored.net + stored.tax == stored.gross and stored.gross == (
        renewal_paid if mode is TaxMode.INCLUSIVE else D("4.99") + renewal_tax
    )
    assert stored.evidence == first.tax.evidence  # the evidence of the first payment stands
    assert recurring(first.transaction_id).amount == D("4.99")  # the agreed price is kept

    page = invoke(get_invoice.handler, "GET", f"/invoices/{documents.invoice_token(renewal)}")
    assert page.status == 200, page.body
    assert 'id="buyer-country">FR<' in page.body
    rows = [r for r in re.findall(r"<tr><td>(.*?)</td></tr>", page.body) if "%" in r]
    assert any("21%" in r and f"${renewal_tax}" in r for r in rows), rows
    assert f"${renewal_tax}" in page.body.split('id="tax-total"')[1][:40]


def test_an_untaxed_store_renews_at_the_agreed_amount(demo: DemoStore, invoke: Invoke) -> None:
    with time_machine.travel(START, tick=False) as traveller:
        ident = basket_with(invoke, demo, {"package_id": 1})
        assert pay_form(invoke, ident).status == 303
        traveller.move_to(RENEWAL + timedelta(seconds=1))
        [outcome] = run(RENEWAL + timedelta(seconds=1)).outcomes
        assert outcome.kind is OutcomeKind.RENEWAL_CHARGED
    renewal = latest(demo)
    assert (renewal.amount, renewal.tax) == (D("4.99"), None)
