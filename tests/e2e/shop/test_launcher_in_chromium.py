"""The Tebex.js-compatible launcher in headless Chromium: a third-party site (another origin)
that uses only Tebex.js's documented calls (`init`, `on`, `launch`) with the script's address
changed to the shop's `/tebex.js` opens our hosted checkout, the player pays (sandbox), the
site receives `payment:complete` and the checkout closes (`closeOnPaymentComplete`); a player
who closes the checkout's window gets `close` and no completion."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import served
from tests.support.local_stack import free_port

pytestmark = pytest.mark.e2e

PAGE = Path(__file__).with_name("launcher_page.html")


@pytest.fixture
def third_party_site(local_stack: dict[str, Any]) -> Iterator[str]:
    """The test page on its own origin, its script pointed at the shop."""
    body = PAGE.read_text().replace("SHOP_URL", local_stack["shop_url"].rstrip("/")).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            found = self.path.split("?")[0] == "/"
            self.send_response(200 if found else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body) if found else 0))
            self.end_headers()
            if found:
                self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    port = free_port()
    yield from served(ThreadingHTTPServer(("127.0.0.1", port), Handler), f"http://127.0.0.1:{port}")


def basket_for(local_stack: dict[str, Any], username: str) -> str:
    base = local_stack["headless_url"]
    host = base.split("/api/")[0]
    with httpx.Client(timeout=10) as http:
        made = http.post(f"{base}/baskets", json={"username": username})
        assert made.status_code in (200, 201), made.text
        ident = str(made.json()["data"]["ident"])
        added = http.post(f"{host}/api/baskets/{ident}/packages", json={"package_id": 10, "quantity": 1})
        assert added.status_code == 200, added.text
    return ident


def test_a_tebex_js_site_opens_our_checkout_and_hears_the_payment(
    local_stack: dict[str, Any], third_party_site: str, browser: Browser
) -> None:
    ident = basket_for(local_stack, f"Js{secrets.token_hex(4)}")
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{third_party_site}/?ident={ident}")
        page.wait_for_function("() => window.Tebex && window.Tebex.checkout")
        with context.expect_page() as opened:
            page.get_by_role("button", name="Buy now").click()
        checkout = opened.value
        expect(page.locator("#log li")).to_have_text(["open"])
        expect(page.get_by_role("dialog", name="Checkout")).to_be_visible()  # the site is dimmed
        checkout.wait_for_load_state()
        assert f"/checkout/{ident}" in checkout.url
        checkout.get_by_role("button", name="Pay now").click()
        expect(page.locator("#log li")).to_have_text(
            ["open", f"payment:complete {ident}", "payment_complete", "close"], timeout=30_000
        )
        expect(page.get_by_role("dialog", name="Checkout")).to_have_count(0)
        assert checkout.is_closed()
    finally:
        context.close()
    assert errors == [], errors


def test_closing_the_checkout_window_tells_the_site_and_pays_nothing(
    local_stack: dict[str, Any], third_party_site: str, browser: Browser
) -> None:
    ident = basket_for(local_stack, f"Js{secrets.token_hex(4)}")
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{third_party_site}/?ident={ident}")
        page.wait_for_function("() => window.Tebex && window.Tebex.checkout")
        with context.expect_page() as opened:
            page.get_by_role("button", name="Buy now").click()
        opened.value.close()
        expect(page.locator("#log li")).to_have_text(["open", "close"], timeout=10_000)
        expect(page.get_by_role("dialog", name="Checkout")).to_have_count(0)
    finally:
        context.close()
