"""A business buyer's VAT ID checked through Stripe (docs/tax-model.md, "VAT IDs checked
through Stripe"): its shape first (a 422 before any call), then a Stripe Customer with the ID,
whose `verification.status` decides: verified → valid (reverse charge), unverified → invalid
(the VAT is charged), pending → unverified (the shape stands: reverse charge). localstripe
answers with Stripe's documented test values (…111111111 unverified, …222222222 pending). The
status is kept on the payment and shown on the invoice and the panel's payment page."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from functions.admin import get_payment_page
from functions.storefront import get_checkout_return, get_invoice
from tests.integration.storefront.support import ACCOUNT
from tests.integration.storefront.test_checkout import new_basket
from tests.integration.storefront.test_checkout_pages import brand
from tests.integration.storefront.test_checkout_tax import billing
from tests.integration.stripe.test_stripe_webhook import page_intent, stripe_store  # noqa: F401
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.localstripe import pay_in_page
from tests.support.panel import signed_in
from webstore.admin.roles import Role
from webstore.catalog import Tax, TaxCalculation, TaxMode
from webstore.invoices import documents
from webstore.repo.payments import PaymentRepository
from webstore.tax.rates import EU_STANDARD_RATES

IDS = {  # VAT ID: (status kept, tax on 2 x 2.50 from France, exclusive, what the invoice says)
    "FR40303265045": ("valid", D("0"), "verified"),
    "FR40111111111": ("invalid", D("1.00"), "not valid: VAT charged"),
    "FR40222222222": ("unverified", D("0"), "not verified"),
}


@pytest.mark.parametrize("vat_id", list(IDS))
def test_stripe_checks_the_vat_id_and_its_status_decides_the_reverse_charge(
    stripe_store: DemoStore,  # noqa: F811
    stripe_api: str,
    invoke: Invoke,
    vat_id: str,
) -> None:
    status, tax, shown = IDS[vat_id]
    manual = Tax(
        mode=TaxMode.EXCLUSIVE,
        calculation=TaxCalculation.MANUAL,
        rates=EU_STANDARD_RATES,
        origin_country="DE",
    )
    brand(stripe_store, tax=manual)
    ident = new_basket(invoke, stripe_store)
    assert billing(invoke, ident, "FR", "FR", vat_id="FR123").status == 422  # the shape first
    assert billing(invoke, ident, "FR", "FR", vat_id=vat_id).status == 303
    intent = page_intent(invoke, ident)
    assert pay_in_page(stripe_api, intent) == "succeeded"
    back = invoke(
        get_checkout_return.handler, "GET", f"/checkout/{ident}/return", query={"payment_intent": intent}
    )
    assert back.status == 303, back.body

    (payment,) = PaymentRepository(stripe_store.table).latest(ACCOUNT, 1)
    stored = payment.tax
    assert stored is not None and (stored.vat_id, stored.vat_id_status) == (vat_id, status)
    assert (stored.tax, stored.reverse_charge) == (tax, tax == 0)
    page = invoke(get_invoice.handler, "GET", f"/invoices/{documents.invoice_token(payment)}").body
    assert f'id="buyer-vat-id">{vat_id}<' in page and f"({shown})" in page
    assert ("Reverse charge" in page) == (tax == 0)
    panel = signed_in(Role.OWNER).get(get_payment_page.handler, f"/payments/{payment.transaction_id}").body
    assert f'<dd id="vat-id">{vat_id} ({status})</dd>' in panel
