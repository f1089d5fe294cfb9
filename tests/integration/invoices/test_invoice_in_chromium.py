"""The invoice page as a browser shows it: the page the real handler answers (moto), opened in
Debian's headless Chromium (Playwright) at desktop and phone size; the screenshots are the ones
docs/tax.md shows (docs/img/invoice-desktop.png, docs/img/invoice-phone.png). Printing (the
print media) leaves the store's frame off the paper."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from functions.storefront import get_invoice
from tests.integration.admin.money_support import use_clock
from tests.support.chromium import CHROMIUM_ARGS, CHROMIUM_PATH
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore import keys
from webstore.catalog import Seller
from webstore.domain.gateways import SANDBOX
from webstore.invoices import documents
from webstore.payments import recording
from webstore.payments.order import Order, OrderLine
from webstore.repo.store import StoreRepository
from webstore.services import get_services

IMAGES = Path(__file__).resolve().parents[3] / "docs" / "img"
SIZES = {"desktop": (1280, 900), "phone": (390, 844)}


def test_the_invoice_page_in_chromium_desktop_and_phone(demo: DemoStore, invoke: Invoke) -> None:
    playwright = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM_PATH).exists():
        pytest.skip("no Chromium on this machine")
    use_clock()
    store = StoreRepository(demo.table).store(1)
    seller = Seller(legal_name="Ada Blocks SARL", address="1 rue des Mines\n75001 Paris", country="FR",
                    tax_number="FR12345678901")  # fmt: skip
    demo.table.update(  # the settings form's effect (its own test: test_documents.py)
        keys.key(keys.store_pk(store.id), keys.STORE_ITEM),
        "SET seller = :s",
        values={":s": seller.model_dump()},
    )
    order = Order(
        account_id=1,
        idempotency_key="chromium",
        username="Steve",
        email="steve@example.test",
        country="FR",
        lines=[
            OrderLine(package_id=10, paid_price=Decimal("10.00")),
            OrderLine(package_id=10, quantity=2, paid_price=Decimal("5.00")),
        ],
        price_paid=Decimal("18.00"),
        currency="USD",
        gateway=SANDBOX.name,
    )
    payment = recording.fulfil(get_services(), order)
    token = documents.invoice_token(payment)
    answer = invoke(get_invoice.handler, "GET", f"/invoices/{token}")
    assert answer.status == 200, answer.body
    IMAGES.mkdir(parents=True, exist_ok=True)
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM_PATH, args=CHROMIUM_ARGS)
        try:
            for size, (width, height) in SIZES.items():
                page = browser.new_page(viewport={"width": width, "height": height})
                page.set_content(answer.body)
                assert page.locator("#doc-number").inner_text() == "2026-00001"
                assert "FR12345678901" in page.locator("#seller").inner_text()
                assert page.locator("#lines tbody tr").count() == 2
                assert "$18.00" in page.locator("#gross-total").inner_text()
                page.screenshot(path=str(IMAGES / f"invoice-{size}.png"), full_page=True)
                page.emulate_media(media="print")
                assert not page.locator("header.brand").is_visible()  # the frame stays off paper
                page.close()
        finally:
            browser.close()
    assert (IMAGES / "invoice-desktop.png").stat().st_size > 5_000
