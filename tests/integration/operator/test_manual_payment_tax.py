"""A manual payment (operator API `createPayment`) carries tax (docs/tax-model.md, "Manual
payments"): its price is what the buyer paid, the tax the part of it that is tax at the rate of
the given country (else the store's own), stored on the payment and shown on its invoice."""

from __future__ import annotations

import re
from decimal import Decimal as D
from typing import Any

import pytest

from functions.operator import create_payment
from functions.storefront import get_invoice
from tests.integration.operator.support import secret_headers
from tests.integration.storefront.test_checkout_pages import brand
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from webstore.catalog import Tax, TaxCalculation, TaxMode
from webstore.invoices import documents
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.tax.rates import EU_STANDARD_RATES


def create(invoke: Invoke, demo: DemoStore, **extra: Any) -> Response:
    return invoke(
        create_payment.handler,
        "POST",
        "/payments",
        headers=secret_headers(demo.server_secret),
        body={"ign": "Steve", "packages": [{"id": 10}], "price": "12.00", **extra},
    )


def latest(demo: DemoStore) -> PaymentRecord | None:
    found = PaymentRepository(demo.table).latest(1, 1)
    return found[0] if found else None


@pytest.mark.parametrize("mode", [TaxMode.EXCLUSIVE, TaxMode.INCLUSIVE])
@pytest.mark.parametrize(
    ("country", "taxed", "rate", "tax"),
    [("FR", "FR", "20", "2.00"), ("", "DE", "19", "1.92"), ("us", "US", "0", "0")],
)
def test_a_manual_payment_holds_the_tax_of_its_country(
    demo: DemoStore, invoke: Invoke, mode: TaxMode, country: str, taxed: str, rate: str, tax: str
) -> None:
    brand(
        demo,
        tax=Tax(mode=mode, calculation=TaxCalculation.MANUAL, rates=EU_STANDARD_RATES, origin_country="DE"),
    )
    answer = create(invoke, demo, **({"country": country} if country else {}))
    assert answer.status == 200, answer.body
    assert answer.json()["amount"] == "12.00"  # the price paid is kept: the tax is inside it
    payment = latest(demo)
    assert payment is not None and payment.tax is not None and payment.country == taxed
    stored = payment.tax
    assert (stored.country, stored.tax, stored.gross, stored.inclusive) == (taxed, D(tax), D("12.00"), True)
    assert [line.rate for line in stored.lines] == [D(rate)] and stored.net + stored.tax == D("12.00")
    assert stored.evidence.billing_country == (taxed if country else "")

    page = invoke(get_invoice.handler, "GET", f"/invoices/{documents.invoice_token(payment)}")
    assert page.status == 200, page.body
    assert f'id="buyer-country">{taxed}<' in page.body
    rows = [r for r in re.findall(r"<tr><td>(.*?)</td></tr>", page.body) if "%" in r]
    assert any(f"{rate}%" in r and f"${tax if tax != '0' else '0.00'}" in r for r in rows), rows


def test_a_country_not_known_is_a_422_naming_it_and_records_nothing(demo: DemoStore, invoke: Invoke) -> None:
    brand(demo, tax=Tax(mode=TaxMode.EXCLUSIVE, calculation=TaxCalculation.MANUAL, rates=EU_STANDARD_RATES))
    answer = create(invoke, demo, country="ZZ")
    assert answer.status == 422 and "country" in answer.json()["error_message"]
    assert latest(demo) is None


def test_an_untaxed_store_records_no_tax(demo: DemoStore, invoke: Invoke) -> None:
    assert create(invoke, demo, country="FR").status == 200
    payment = latest(demo)
    assert payment is not None and payment.tax is None and payment.country == "FR"
