"""A player's whole purchase in headless Chromium against the local stack, as a shop runs it:
basket → package → auth page → checkout page → pay → back at the shop; then the basket is
complete, the operator interface lists the payment, the queue holds its commands, and the
shop's webhook receiver got `basket.authenticated` and `payment.completed`, signed."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser

from tests.e2e.conftest import ReturnSite, WebhookReceiver
from webstore.storefront.return_urls import after_log_in

pytestmark = pytest.mark.e2e


def test_a_player_pays_in_the_browser(
    local_stack: dict[str, Any], return_site: ReturnSite, webhook_receiver: WebhookReceiver, browser: Browser
) -> None:
    base = local_stack["headless_url"]
    host = base.split("/api/")[0]
    complete_url = return_site.url("/thanks")
    with httpx.Client(timeout=10) as http:
        basket = http.post(
            f"{base}/baskets",
            json={
                "complete_url": complete_url,
                "cancel_url": return_site.url("/basket"),
                "complete_auto_redirect": True,
                "custom": {"shop_order": "E2E-42"},
            },
        ).json()["data"]
        ident = basket["ident"]
        added = http.post(f"{host}/api/baskets/{ident}/packages", json={"package_id": 10, "quantity": 1})
        assert added.status_code == 200, added.text
        checkout_link = added.json()["data"]["links"]["checkout"]
        [auth] = http.get(f"{base}/baskets/{ident}/auth", params={"returnUrl": checkout_link}).json()

    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(auth["url"])
        page.get_by_label("Username").fill("Alex_e2e")
        page.get_by_role("button", name="Continue").click()
        page.wait_for_url(after_log_in(checkout_link), timeout=10_000)
        assert "Diamond Sword" in page.content()
        assert "Alex_e2e" in page.content()
        page.get_by_role("button", name="Pay now").click()
        try:
            page.wait_for_url(complete_url, timeout=30_000)
        except Exception as error:
            raise AssertionError(f"not back at the shop: {page.url}\n{page.content()[:2000]}") from error
        assert page.get_by_role("heading").inner_text() == "Back at the shop"
    finally:
        context.close()

    with httpx.Client(timeout=10) as http:
        paid = http.get(f"{base}/baskets/{ident}").json()["data"]
        assert paid["complete"] is True
        assert paid["username"] == "Alex_e2e"
        assert set(paid["links"]) == {"payment"}

        secret = {"X-Tebex-Secret": local_stack["server_secret"]}
        plugin = local_stack["plugin_url"]
        payments = http.get(f"{plugin}/payments", headers=secret).json()
        mine = [p for p in payments if p["player"]["name"] == "Alex_e2e"]
        assert len(mine) == 1 and mine[0]["amount"] == "2.50"

        due = http.get(f"{plugin}/queue", headers=secret)
        if due.status_code == 429:  # another test polled within next_check (2 s here)
            time.sleep(int(due.headers["Retry-After"]))
            due = http.get(f"{plugin}/queue", headers=secret)
        assert "Alex_e2e" in [p["name"] for p in due.json()["players"]]

    authenticated = webhook_receiver.wait_for(
        "basket.authenticated", lambda e: e["subject"]["ident"] == ident
    )
    assert authenticated["subject"]["username"] == "Alex_e2e"
    completed = webhook_receiver.wait_for(
        "payment.completed", lambda e: e["subject"]["custom"] == {"shop_order": "E2E-42"}
    )
    assert completed["subject"]["transaction_id"].startswith("tbx-")
    assert completed["subject"]["customer"]["username"]["username"] == "Alex_e2e"
    assert completed["subject"]["status"] == {"id": 1, "description": "Complete"}
