"""The checkout of a store that taxes by the buyer's country, in headless Chromium against its
own local stack (`webstore serve --catalog` with manual rates, prices exclusive of tax): the
page asks for the billing country before the payment (the pay button waits), the tax row of
the chosen country appears and adds up, the receipt says the same; on a phone nothing scrolls
sideways. With WEBSTORE_DOC_SCREENSHOTS=1 it writes the screenshots docs/tax-model.md shows
(docs/img/tax-*.png); otherwise into a temporary folder (a test run leaves the tree as it was)."""

from __future__ import annotations

import json
import os
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from tests.e2e.conftest import ROOT, WebhookReceiver, started_stack
from tests.e2e.test_checkout_pages import DESKTOP, PHONE, make_basket, scrolls_sideways, shown_rows
from tests.support.demo import demo_catalog_data
from webstore.tax.rates import EU_STANDARD_RATES

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def taxed_stack(tmp_path_factory: pytest.TempPathFactory, webhook_receiver: WebhookReceiver) -> Any:
    data = demo_catalog_data()
    data["store"] = {
        **data["store"],
        "tax": {
            "mode": "exclusive",
            "calculation": "manual",
            "rates": {k: str(v) for k, v in EU_STANDARD_RATES.items()},
            "origin_country": "DE",
        },
    }
    catalog = tmp_path_factory.mktemp("taxed") / "catalog.json"
    catalog.write_text(json.dumps(data))
    options = ("--catalog", str(catalog))
    yield from started_stack(tmp_path_factory, webhook_receiver, *options)


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if os.environ.get("WEBSTORE_DOC_SCREENSHOTS") == "1":
        return ROOT / "docs" / "img"
    return tmp_path_factory.mktemp("shots")


def choose_country(page: Page, country: str, vat_id: str = "") -> None:
    page.select_option("#billing_country", country)
    if vat_id:
        page.fill("#vat_id", vat_id)
    with page.expect_navigation():
        page.click("#billing-submit")


def test_the_checkout_asks_the_country_and_shows_its_tax(
    taxed_stack: dict[str, Any], browser: Browser, shots: Path
) -> None:
    checkout = make_basket(taxed_stack, {"package_id": 10, "quantity": 2})
    page = browser.new_context(viewport=DESKTOP).new_page()
    page.goto(checkout)
    assert page.locator("#billing_country").is_visible()
    assert page.locator("#pay").is_disabled() and page.locator("#billing-needed").is_visible()

    choose_country(page, "FR")
    rows = shown_rows(page)
    assert rows["VAT"] == Decimal("1.00") and rows["Total due"] == Decimal("6.00")
    assert rows["Subtotal"] + rows["VAT"] == rows["Total due"]
    assert "France 20%" in page.locator("table.totals").inner_text()
    assert page.locator("#pay").is_enabled() and "6.00" in page.locator("#pay").inner_text()
    page.screenshot(path=str(shots / "tax-checkout-desktop.png"), full_page=True)

    choose_country(page, "DE")  # another country: the tax follows
    assert shown_rows(page)["VAT"] == Decimal("0.95")
    with page.expect_navigation():
        page.click("#pay")
    assert page.url.endswith("/receipt")
    receipt = shown_rows(page)
    assert receipt["VAT"] == Decimal("0.95") and receipt["Total paid"] == Decimal("5.95")
    page.screenshot(path=str(shots / "tax-receipt-desktop.png"), full_page=True)
    page.context.close()


def test_on_a_phone_a_business_buyer_gets_the_reverse_charge(
    taxed_stack: dict[str, Any], browser: Browser, shots: Path
) -> None:
    checkout = make_basket(taxed_stack, {"package_id": 10, "quantity": 2})
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(checkout)
    assert not scrolls_sideways(page)
    choose_country(page, "FR", vat_id="FR40303265045")
    rows = shown_rows(page)
    assert rows["VAT"] == Decimal("0") and rows["Total due"] == Decimal("5.00")
    assert page.locator("#reverse-charge").is_visible()
    assert not scrolls_sideways(page)
    page.screenshot(path=str(shots / "tax-checkout-phone.png"), full_page=True)
    context.close()
    with httpx.Client(timeout=10) as http:  # the storefront API tells the same
        ident = checkout.rstrip("/").rsplit("/", 1)[1]
        basket = http.get(f"{taxed_stack['headless_url']}/baskets/{ident}").json()["data"]
    assert (basket["sales_tax"], basket["total_price"], basket["country"]) == (0, 5, "FR")


@pytest.mark.parametrize(
    ("country", "rate", "tax", "total"), [("FR", "20%", "1.00", "6.00"), ("DE", "19%", "0.95", "5.95")]
)
def test_the_same_basket_bought_from_france_and_germany_has_its_invoice(
    taxed_stack: dict[str, Any], browser: Browser, country: str, rate: str, tax: str, total: str
) -> None:
    """2 x 2.50 bought from each country: the checkout's tax row, the receipt, then the invoice
    page the receipt links (the buyer's country, the line's rate and tax, the totals)."""
    checkout = make_basket(taxed_stack, {"package_id": 10, "quantity": 2})
    page = browser.new_context(viewport=DESKTOP).new_page()
    page.goto(checkout)
    choose_country(page, country)
    assert shown_rows(page)["VAT"] == Decimal(tax) and shown_rows(page)["Total due"] == Decimal(total)
    with page.expect_navigation():
        page.click("#pay")
    assert page.url.endswith("/receipt") and shown_rows(page)["Total paid"] == Decimal(total)
    with page.expect_navigation():
        page.click("#invoice")
    assert "/invoices/" in page.url
    assert page.locator("#buyer-country").inner_text() == country
    lines = page.locator("table tr").all_inner_texts()
    assert any(rate in line and tax in line for line in lines), lines
    assert tax in page.locator("#tax-total").inner_text()
    assert total in page.locator("#gross-total").inner_text()
    page.context.close()
