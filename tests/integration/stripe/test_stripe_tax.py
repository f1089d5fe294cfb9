"""The Stripe Tax adapter (webstore.tax.stripe_tax) with the official `stripe` library against
localstripe and its Stripe Tax stand-in (tests/support/localstripe_tax.py): the same basket
from France, Germany, a taxable and a non-taxable US state and an EU business buyer, inclusive
and exclusive; the transaction on payment and its full and partial reversals; registrations."""

from __future__ import annotations

import secrets
import time
from decimal import Decimal as D

import pytest

from tests.support.localstripe import stripe_client
from webstore.catalog import Tax, TaxCalculation, TaxMode
from webstore.tax.stripe_tax import StripeTax

AMOUNTS = [D("4.99"), D("10.00"), D("0.05")]


@pytest.fixture(scope="module")
def tax(stripe_api: str) -> StripeTax:
    client = stripe_client(stripe_api)
    client.raw_request("post", "/v1/tax/registrations", country="FR", type="oss_union")
    client.raw_request("post", "/v1/tax/registrations", country="US", **{"country_options[us][state]": "WA"})
    return StripeTax(client)


def settings(mode: TaxMode) -> Tax:
    return Tax(mode=mode, calculation=TaxCalculation.STRIPE_TAX, origin_country="DE")


@pytest.mark.parametrize(
    ("country", "postal", "vat_id", "exclusive_tax", "rates"),
    [
        ("FR", "", "", [D("1.00"), D("2.00"), D("0.01")], {D("20")}),
        ("DE", "", "", [D("0.95"), D("1.90"), D("0.01")], {D("19")}),
        ("US", "98101", "", [D("0.51"), D("1.03"), D("0.01")], {D("10.25")}),  # Washington
        ("US", "97201", "", [D("0"), D("0"), D("0")], {D("0")}),  # Oregon: no sales tax
        ("FR", "", "FR40303265045", [D("0"), D("0"), D("0")], {D("0")}),  # reverse charge
    ],
)
def test_one_tax_per_line_as_stripe_answers(
    tax: StripeTax, country: str, postal: str, vat_id: str, exclusive_tax: list[D], rates: set[D]
) -> None:
    quote = tax.quote(
        settings(TaxMode.EXCLUSIVE),
        AMOUNTS,
        currency="EUR",
        country=country,
        postal_code=postal,
        vat_id=vat_id,
    )
    assert [line.tax for line in quote.lines] == exclusive_tax
    assert {line.rate for line in quote.lines} == rates
    assert all(line.net + line.tax == line.gross for line in quote.lines)
    assert quote.stripe_calculation_id and quote.stripe_calculation_id.startswith("taxcalc_")
    assert quote.reverse_charge == bool(vat_id)
    inclusive = tax.quote(
        settings(TaxMode.INCLUSIVE),
        AMOUNTS,
        currency="EUR",
        country=country,
        postal_code=postal,
        vat_id=vat_id,
    )
    assert [line.gross for line in inclusive.lines] == AMOUNTS
    assert all(line.tax <= line.gross for line in inclusive.lines)


def test_transaction_on_payment_then_partial_and_full_reversal(tax: StripeTax) -> None:
    quote = tax.quote(settings(TaxMode.EXCLUSIVE), [D("10.00")], currency="EUR", country="FR")
    reference = f"txn-{secrets.token_hex(4)}"
    transaction = tax.record(quote.stripe_calculation_id or "", reference)
    assert transaction.startswith("tax_")
    assert tax.record(quote.stripe_calculation_id or "", reference) == transaction  # a retry: the same one
    partial = tax.reverse(transaction, f"{reference}-refund-1", amount=D("3.00"), currency="EUR")
    rest = tax.reverse(transaction, f"{reference}-refund-2", amount=D("9.00"), currency="EUR")
    assert partial.startswith("tax_") and rest.startswith("tax_") and partial != rest
    other = tax.record(
        tax.quote(settings(TaxMode.EXCLUSIVE), [D("5")], currency="EUR", country="DE").stripe_calculation_id
        or "",
        f"{reference}-b",
    )
    assert tax.reverse(other, f"{reference}-b-refund").startswith("tax_")


def test_registrations_are_read(tax: StripeTax) -> None:
    found = {(r.country, r.state, r.status) for r in tax.registrations()}
    assert {("FR", "", "active"), ("US", "WA", "active")} <= found


def test_the_added_latency_of_a_calculation(tax: StripeTax, capsys: pytest.CaptureFixture[str]) -> None:
    """What one calculation costs the checkout here (library + loopback stand-in); recorded in
    docs/tax-model.md beside Stripe's own figure."""
    tax.quote(settings(TaxMode.EXCLUSIVE), AMOUNTS, currency="EUR", country="FR")  # warm
    times = []
    for _ in range(20):
        started = time.perf_counter()
        tax.quote(settings(TaxMode.EXCLUSIVE), AMOUNTS, currency="EUR", country="FR")
        times.append(time.perf_counter() - started)
    times.sort()
    with capsys.disabled():
        print(f"\nstripe tax calculation: median {times[10] * 1000:.1f} ms, max {times[-1] * 1000:.1f} ms")
    assert times[10] < 2.0
