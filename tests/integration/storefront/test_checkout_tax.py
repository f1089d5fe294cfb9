"""Tax by the buyer's country through the hosted checkout (manual rates, the sandbox gateway):
the same basket (2 x 2.50) bought from France, Germany, the US and by a French business with a
VAT ID, prices inclusive and exclusive of tax: the checkout page, the basket API, the receipt,
the stored payment and the webhook payload agree to the cent; the evidence is stored."""

from __future__ import annotations

import re
from decimal import Decimal as D
from urllib.parse import urlencode

import pytest

from functions.storefront import get_checkout_page, get_checkout_receipt, submit_checkout_billing
from tests.integration.storefront.support import ACCOUNT
from tests.integration.storefront.test_checkout import FORM, attempt_key_of, basket_json, new_basket, pay
from tests.integration.storefront.test_checkout_pages import brand
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from webstore.catalog import Tax, TaxCalculation, TaxMode
from webstore.payments.events import stored_payment_subject
from webstore.repo.payments import PaymentRepository
from webstore.tax.rates import EU_STANDARD_RATES

BUYERS = {
    # buyer: (billing country, viewer country, VAT ID, rate)
    "france": ("FR", "FR", "", D("20")),
    "germany": ("DE", "AT", "", D("19")),  # a VPN in Austria: one piece contradicts
    "us": ("US", "US", "", D("0")),
    "business": ("FR", "FR", "FR40303265045", D("0")),  # reverse charge
}
EXPECTED = {  # (mode, buyer) -> (tax, total) for 2 x 2.50
    ("exclusive", "france"): (D("1.00"), D("6.00")),
    ("exclusive", "germany"): (D("0.95"), D("5.95")),
    ("exclusive", "us"): (D("0"), D("5.00")),
    ("exclusive", "business"): (D("0"), D("5.00")),
    ("inclusive", "france"): (D("0.83"), D("5.00")),
    ("inclusive", "germany"): (D("0.80"), D("5.00")),
    ("inclusive", "us"): (D("0"), D("5.00")),
    ("inclusive", "business"): (D("0"), D("5.00")),
}


def manual_rates(demo: DemoStore, mode: TaxMode) -> None:
    tax = Tax(mode=mode, calculation=TaxCalculation.MANUAL, rates=EU_STANDARD_RATES, origin_country="DE")
    brand(demo, tax=tax)


def billing(invoke: Invoke, ident: str, country: str, viewer: str = "", **fields: str) -> Response:
    headers = {**FORM, **({"cloudfront-viewer-country": viewer} if viewer else {})}
    return invoke(
        submit_checkout_billing.handler,
        "POST",
        f"/checkout/{ident}/billing",
        raw_body=urlencode({"billing_country": country, **fields}),
        headers=headers,
    )


def amounts(page: str) -> dict[str, D]:
    """The totals table's rows by CSS class (tax, grand due, …)."""
    return {
        kind: D(value) for kind, value in re.findall(r'<tr class="([^"]+)"><th.*?data-amount="([^"]+)"', page)
    }


@pytest.mark.parametrize("buyer", list(BUYERS))
@pytest.mark.parametrize("mode", [TaxMode.EXCLUSIVE, TaxMode.INCLUSIVE])
def test_the_same_basket_from_four_buyers_agrees_everywhere(
    demo: DemoStore, invoke: Invoke, mode: TaxMode, buyer: str
) -> None:
    manual_rates(demo, mode)
    country, viewer, vat_id, rate = BUYERS[buyer]
    tax, total = EXPECTED[(mode.value, buyer)]
    ident = new_basket(invoke, demo)

    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    assert 'id="billing_country"' in page.body and '<button id="pay" type="submit" disabled' in page.body
    refused = pay(invoke, ident, attempt_key_of(page))  # no country yet: nothing charged
    assert refused.status == 422 and "billing country" in refused.body

    answer = billing(invoke, ident, country, viewer, vat_id=vat_id)
    assert answer.status == 303, answer.body
    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    shown = amounts(page.body)
    assert shown["grand due"] == total
    if mode is TaxMode.EXCLUSIVE and tax:
        assert shown["tax"] == tax
    if mode is TaxMode.INCLUSIVE and tax:
        assert f"Prices include ${tax} USD" in page.body
    api = basket_json(invoke, demo, ident)
    assert (D(str(api["sales_tax"])), D(str(api["total_price"])), api["country"]) == (tax, total, country)

    assert pay(invoke, ident, attempt_key_of(page)).status == 303
    receipt = invoke(get_checkout_receipt.handler, "GET", f"/checkout/{ident}/receipt")
    assert amounts(receipt.body)["grand due"] == total

    (payment,) = PaymentRepository(demo.table).latest(ACCOUNT, 1)
    stored = payment.tax
    assert stored is not None and stored.country == country
    assert (stored.tax, stored.gross if mode is TaxMode.INCLUSIVE else stored.net + stored.tax) == (
        tax,
        total,
    )
    assert {line.rate for line in stored.lines} == {rate}
    assert stored.reverse_charge == bool(vat_id) and stored.vat_id == vat_id
    assert stored.evidence.billing_country == country and stored.evidence.ip_country == viewer
    assert stored.evidence.conflict == (viewer != country)
    assert payment.amount == total
    subject = stored_payment_subject(payment)
    assert subject["fees"]["tax"]["amount"] == float(tax)
    assert subject["price_paid"]["amount"] == float(total)
    assert subject["customer"]["country"] == country


def test_a_bad_country_or_vat_id_is_a_clear_422_and_changes_nothing(demo: DemoStore, invoke: Invoke) -> None:
    manual_rates(demo, TaxMode.EXCLUSIVE)
    ident = new_basket(invoke, demo)
    before = basket_json(invoke, demo, ident)
    assert billing(invoke, ident, "ZZ").status == 422
    refused = billing(invoke, ident, "FR", vat_id="US123")
    assert refused.status == 422 and "vat_id" in refused.body
    assert basket_json(invoke, demo, ident) == before


def test_changing_the_basket_after_the_country_keeps_the_tax_right(demo: DemoStore, invoke: Invoke) -> None:
    from tests.integration.storefront.support import add

    manual_rates(demo, TaxMode.EXCLUSIVE)
    ident = new_basket(invoke, demo)
    assert billing(invoke, ident, "HU").status == 303
    assert D(str(basket_json(invoke, demo, ident)["sales_tax"])) == D("1.35")  # 27% of 5.00
    assert add(invoke, ident, package_id=10, quantity=1).status == 200
    api = basket_json(invoke, demo, ident)
    assert (D(str(api["sales_tax"])), D(str(api["total_price"]))) == (D("2.03"), D("9.53"))  # 27% of 7.50
