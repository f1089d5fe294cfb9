"""A Stripe Tax store's checkout end to end (official `stripe` library, localstripe with its
Stripe Tax stand-in): the billing country asked, one Stripe Tax calculation for the basket, the
Payment Element's PaymentIntent for the taxed total, the payment recording the calculation and
the tax transaction made from it, then reversed (partly, then the rest) as a refund would; the
same basket (2 x 2.50) from France, Germany, Washington (taxable), Oregon (no sales tax) and a
French business with a VAT ID, inclusive and exclusive: page, basket API, receipt, payment
record and webhook payload agree to the cent."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from functions.admin import get_tax_settings
from functions.storefront import get_checkout_page, get_checkout_receipt, get_checkout_return
from tests.integration.storefront.support import ACCOUNT
from tests.integration.storefront.test_checkout import basket_json, new_basket
from tests.integration.storefront.test_checkout_pages import brand
from tests.integration.storefront.test_checkout_tax import amounts, billing
from tests.integration.stripe.test_stripe_webhook import intent_json, page_intent, stripe_store  # noqa: F401
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.localstripe import pay_in_page, stripe_client
from tests.support.panel import signed_in
from webstore.admin.roles import Role
from webstore.catalog import Tax, TaxCalculation, TaxMode
from webstore.checkout import tax_details
from webstore.payments.events import stored_payment_subject
from webstore.repo.payments import PaymentRepository
from webstore.repo.store import StoreRepository
from webstore.services import get_services

BUYERS = {  # buyer: (country, postal code, VAT ID, rate)
    "france": ("FR", "", "", D("20")),
    "germany": ("DE", "", "", D("19")),
    "washington": ("US", "98101", "", D("10.25")),
    "oregon": ("US", "97201", "", D("0")),
    "business": ("FR", "", "FR40303265045", D("0")),
}
EXPECTED = {  # (mode, buyer) -> (tax, total) for 2 x 2.50
    ("exclusive", "france"): (D("1.00"), D("6.00")),
    ("exclusive", "germany"): (D("0.95"), D("5.95")),
    ("exclusive", "washington"): (D("0.51"), D("5.51")),
    ("exclusive", "oregon"): (D("0"), D("5.00")),
    ("exclusive", "business"): (D("0"), D("5.00")),
    ("inclusive", "france"): (D("0.83"), D("5.00")),
    ("inclusive", "germany"): (D("0.80"), D("5.00")),
    ("inclusive", "washington"): (D("0.46"), D("5.00")),
    ("inclusive", "oregon"): (D("0"), D("5.00")),
    ("inclusive", "business"): (D("0"), D("5.00")),
}


@pytest.fixture(scope="module")
def registered(stripe_api: str) -> str:
    client = stripe_client(stripe_api)
    client.raw_request("post", "/v1/tax/registrations", country="FR", type="oss_union")
    client.raw_request("post", "/v1/tax/registrations", country="US", **{"country_options[us][state]": "WA"})
    return stripe_api


@pytest.mark.parametrize("buyer", list(BUYERS))
@pytest.mark.parametrize("mode", [TaxMode.EXCLUSIVE, TaxMode.INCLUSIVE])
def test_the_same_basket_with_stripe_tax(
    stripe_store: DemoStore,  # noqa: F811
    registered: str,
    invoke: Invoke,
    mode: TaxMode,
    buyer: str,
) -> None:
    demo = stripe_store
    brand(demo, tax=Tax(mode=mode, calculation=TaxCalculation.STRIPE_TAX, origin_country="DE"))
    country, postal, vat_id, rate = BUYERS[buyer]
    tax, total = EXPECTED[(mode.value, buyer)]
    ident = new_basket(invoke, demo)

    first = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    assert (
        'id="billing_country"' in first.body and "data-client-secret" not in first.body
    )  # no intent untaxed
    if country == "US":  # Stripe Tax needs the postal code there
        assert billing(invoke, ident, country).status == 422
    answer = billing(invoke, ident, country, country, billing_postal_code=postal, vat_id=vat_id)
    assert answer.status == 303, answer.body

    intent = page_intent(invoke, ident)
    assert D(intent_json(registered, intent)["amount"]) / 100 == total
    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    assert amounts(page.body)["grand due"] == total
    api = basket_json(invoke, demo, ident)
    assert (D(str(api["sales_tax"])), D(str(api["total_price"]))) == (tax, total)

    assert pay_in_page(registered, intent) == "succeeded"
    back = invoke(
        get_checkout_return.handler, "GET", f"/checkout/{ident}/return", query={"payment_intent": intent}
    )
    assert back.status == 303 and back.headers["location"].endswith("/receipt"), back.body
    receipt = invoke(get_checkout_receipt.handler, "GET", f"/checkout/{ident}/receipt")
    assert amounts(receipt.body)["grand due"] == total

    (payment,) = PaymentRepository(demo.table).latest(ACCOUNT, 1)
    stored = payment.tax
    assert stored is not None and stored.calculation is TaxCalculation.STRIPE_TAX
    assert (stored.tax, payment.amount, stored.country, stored.postal_code) == (tax, total, country, postal)
    assert {line.rate for line in stored.lines} == {rate}
    assert stored.reverse_charge == bool(vat_id)
    assert stored.stripe_calculation_id and stored.stripe_transaction_id
    # The card's country from Stripe (localstripe's cards are French): the third piece.
    assert stored.evidence.card_country == "FR"
    assert ("card_country" in stored.evidence.agree) == (country == "FR") and not stored.evidence.conflict
    assert stored_payment_subject(payment)["fees"]["tax"]["amount"] == float(tax)

    # A partial refund, then the rest: the tax transaction reversed as Stripe's reports need.
    store = StoreRepository(demo.table).store(ACCOUNT)
    services = get_services()
    txn = stored.stripe_transaction_id
    partial = tax_details.reverse_stripe_tax(services, store, txn, f"{payment.transaction_id}-r1", D("1.00"))
    rest = tax_details.reverse_stripe_tax(
        services, store, txn, f"{payment.transaction_id}-r2", total - D("1.00")
    )
    assert partial.startswith("tax_") and rest.startswith("tax_") and partial != rest


def test_the_panel_shows_the_registrations(stripe_store: DemoStore, registered: str) -> None:  # noqa: F811
    brand(stripe_store, tax=Tax(mode=TaxMode.EXCLUSIVE, calculation=TaxCalculation.STRIPE_TAX))
    page = signed_in(Role.OWNER).get(get_tax_settings.handler, "/settings/tax")
    assert page.status == 200, page.body
    assert 'id="registrations"' in page.body and "<td>WA</td>" in page.body and "<td>FR</td>" in page.body
