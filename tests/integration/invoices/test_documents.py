"""Invoices and credit notes as documents through the real handlers: the seller's details from
the store settings form, the buyer's country, each line's net, rate and tax, the totals; a
credit note per refund that names the invoice it corrects; the links from the receipt and the
panel's payment page; a wrong link is the same 404."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from functions.admin import get_payment_page, get_store_settings, refund_payment, save_store_settings
from functions.storefront import get_checkout_page, get_checkout_receipt, get_invoice
from tests.integration.admin.money_support import pay as record
from tests.integration.admin.money_support import use_clock
from tests.integration.storefront.test_checkout import attempt_key_of, new_basket, pay
from tests.support.demo import DemoStore
from tests.support.forms import form_fields
from tests.support.invocation import Invoke
from tests.support.panel import PanelClient, signed_in
from webstore.admin.roles import Role
from webstore.catalog import Tax, TaxMode
from webstore.domain.gateways import SANDBOX
from webstore.invoices import documents
from webstore.invoices.taxes import payment_taxes
from webstore.payments import recording
from webstore.payments.order import Order, OrderLine
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.services import get_services

MINUS = "\u2212"  # money as players read it: a real minus sign
SELLER = {
    "seller.legal_name": "Ada Blocks SARL",
    "seller.address": "1 rue des Mines\n75001 Paris",
    "seller.country": "fr",
    "seller.tax_number": "FR12345678901",
}


@pytest.fixture(autouse=True)
def clock(demo: DemoStore) -> None:
    use_clock()


@pytest.fixture
def owner(demo: DemoStore) -> PanelClient:
    return signed_in(Role.OWNER)


def with_seller(owner: PanelClient, **changes: str) -> None:
    page = owner.get(get_store_settings.handler, "/settings").body
    assert 'name="seller.legal_name"' in page
    fields = {**form_fields(page, action="/settings"), **SELLER}
    posted = owner.post(save_store_settings.handler, "/settings", {**fields, **changes})
    assert posted.status == 303, posted.body


def document(invoke: Invoke, path: str) -> str:
    token, _, query = path.removeprefix("/invoices/").partition("?")
    params = dict(p.split("=") for p in query.split("&")) if query else None
    answer = invoke(get_invoice.handler, "GET", f"/invoices/{token}", query=params)
    assert answer.status == 200, answer.body
    return str(answer.body)


def taxed_payment(key: str = "taxed") -> PaymentRecord:
    """Two lines, 10.00 and 5.00 net, 20% added on top: 18.00 paid, from France."""
    order = Order(
        account_id=1,
        idempotency_key=key,
        username="Steve",
        email="steve@example.test",
        country="FR",
        lines=[
            OrderLine(package_id=10, paid_price=Decimal("10.00")),
            OrderLine(package_id=10, paid_price=Decimal("5.00")),
        ],
        price_paid=Decimal("18.00"),
        currency="USD",
        gateway=SANDBOX.name,
    )
    return recording.fulfil(get_services(), order)


def test_the_invoice_names_seller_buyer_lines_and_totals(
    demo: DemoStore, owner: PanelClient, invoke: Invoke
) -> None:
    with_seller(owner)
    payment = taxed_payment()
    path = documents.invoice_path(payment)
    assert path is not None
    page = document(invoke, path)
    assert "Invoice" in page and "2026-00001" in page
    assert "Ada Blocks SARL" in page and "75001 Paris" in page and "FR12345678901" in page
    assert 'id="buyer-country">FR<' in page
    rows = re.findall(r"<tr><td>(.*?)</td></tr>", page)
    lines = [r for r in rows if "%" in r and "Steve" not in r]
    assert any("$10.00" in r and "20%" in r and "$2.00" in r and "$12.00" in r for r in lines), lines
    assert any("$5.00" in r and "$1.00" in r and "$6.00" in r for r in lines), lines
    assert "$15.00" in page.split('id="net-total"')[1][:40]
    assert "$3.00" in page.split('id="tax-total"')[1][:40]
    assert "$18.00" in page.split('id="gross-total"')[1][:60]
    assert "Reverse charge" not in page


def test_refunds_get_credit_notes_that_add_up_to_the_invoice(
    demo: DemoStore, owner: PanelClient, invoke: Invoke
) -> None:
    with_seller(owner)
    payment = taxed_payment()
    txn = payment.transaction_id
    partial = {"confirm": "yes", "amount": "6.00"}
    assert owner.post(refund_payment.handler, f"/payments/{txn}/refund", partial).status == 303
    assert owner.post(refund_payment.handler, f"/payments/{txn}/refund", {"confirm": "yes"}).status == 303
    stored = PaymentRepository(demo.table).get(1, payment.id, consistent=True)
    assert stored is not None and [r.credit_note.number for r in stored.refunds] == [1, 2]
    first = document(invoke, documents.invoice_path(stored, 1) or "")
    assert "Credit note" in first and "CN-2026-00001" in first and 'id="corrects">2026-00001<' in first
    assert MINUS + "$1.00" in first.split('id="tax-total"')[1][:40]  # 6.00 of 18.00: a third of 3.00 tax
    assert MINUS + "$6.00" in first.split('id="gross-total"')[1][:60]
    second = document(invoke, documents.invoice_path(stored, 2) or "")
    assert MINUS + "$2.00" in second.split('id="tax-total"')[1][:40]  # the rest, exactly
    assert MINUS + "$12.00" in second.split('id="gross-total"')[1][:60]
    invoice = document(invoke, documents.invoice_path(stored) or "")
    assert "CN-2026-00001" in invoice and "CN-2026-00002" in invoice  # linked from the invoice

    panel = owner.get(get_payment_page.handler, f"/payments/{txn}").body
    assert f'href="https://shop.test{documents.invoice_path(stored)}"' in panel
    assert "CN-2026-00002" in panel


def test_inclusive_prices_show_the_tax_inside_them(demo: DemoStore, owner: PanelClient) -> None:
    with_seller(owner)
    payment = record("inclusive", "Steve", 10, "12.00")
    taxes = payment_taxes(payment, Tax(mode=TaxMode.INCLUSIVE, rate=Decimal(20)))
    assert (taxes.net, taxes.tax, taxes.gross, taxes.inclusive) == (
        Decimal("10.00"),
        Decimal("2.00"),
        Decimal("12.00"),
        True,
    )


@pytest.mark.parametrize(
    "token",
    ["nonsense", "1.1.wrongkey-wrongkey", "zzzzzzz.1.abcdefgh", "1.999.abcdefghij"],
)
def test_a_wrong_link_is_the_same_404(demo: DemoStore, invoke: Invoke, token: str) -> None:
    record("any", "Steve", 10, "2.50")
    answer = invoke(get_invoice.handler, "GET", f"/invoices/{token}")
    assert answer.status == 404 and "This invoice link is not valid" in answer.body


def test_a_bad_credit_number_is_refused(demo: DemoStore, invoke: Invoke) -> None:
    payment = record("credit", "Steve", 10, "2.50")
    token = documents.invoice_token(payment)
    bad = invoke(get_invoice.handler, "GET", f"/invoices/{token}", query={"credit": "0"})
    assert bad.status == 422 and "credit" in bad.body
    missing = invoke(get_invoice.handler, "GET", f"/invoices/{token}", query={"credit": "7"})
    assert missing.status == 404


def test_the_seller_form_refuses_a_bad_country(demo: DemoStore, owner: PanelClient) -> None:
    page = owner.get(get_store_settings.handler, "/settings").body
    fields = {**form_fields(page, action="/settings"), "seller.country": "France"}
    answer = owner.post(save_store_settings.handler, "/settings", fields)
    assert answer.status == 422 and "two-letter country code" in answer.body


def test_the_receipt_links_its_invoice(demo: DemoStore, invoke: Invoke) -> None:
    ident = new_basket(invoke, demo)
    key = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
    assert pay(invoke, ident, key).status == 303
    receipt = invoke(get_checkout_receipt.handler, "GET", f"/checkout/{ident}/receipt")
    link = re.search(r'id=invoice href="[^"]*(/invoices/[^"]+)"', receipt.body)
    assert link, receipt.body
    page = document(invoke, link.group(1))
    assert "Invoice" in page and "2026-00001" in page
