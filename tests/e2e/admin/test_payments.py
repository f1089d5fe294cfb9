"""The payments pages in headless Chromium against the local stack: a player buys a VIP
subscription through the hosted checkout, the owner sees it on the dashboard, finds it in
/payments, refunds it: the purchase command no plugin fetched is withdrawn, and nothing
is queued to undo it (on the page, and to the plugin)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser

from tests.e2e.conftest import ReturnSite

pytestmark = pytest.mark.e2e

PLAYER = "Refund_e2e"


def buy_vip(local_stack: dict[str, Any], return_site: ReturnSite, browser: Browser) -> None:
    base = local_stack["headless_url"]
    host = base.split("/api/")[0]
    complete_url = return_site.url("/thanks")
    with httpx.Client(timeout=10) as http:
        basket = {"complete_url": complete_url, "complete_auto_redirect": True}
        ident = http.post(f"{base}/baskets", json=basket).json()["data"]["ident"]
        added = http.post(f"{host}/api/baskets/{ident}/packages", json={"package_id": 1})
        assert added.status_code == 200, added.text
        checkout_link = added.json()["data"]["links"]["checkout"]
        [auth] = http.get(f"{base}/baskets/{ident}/auth", params={"returnUrl": checkout_link}).json()
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(auth["url"])
        page.get_by_label("Username").fill(PLAYER)
        page.get_by_role("button", name="Continue").click()
        page.wait_for_url(f"{checkout_link}?success=true", timeout=10_000)  # as the platform returns
        page.locator("#consent").check()
        page.get_by_role("button", name="Pay now").click()
        page.wait_for_url(complete_url, timeout=30_000)
    finally:
        context.close()


def test_the_owner_finds_and_refunds_a_payment(
    local_stack: dict[str, Any], return_site: ReturnSite, browser: Browser
) -> None:
    buy_vip(local_stack, return_site, browser)
    admin = local_stack["admin_url"]
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{admin}/login")
        page.locator("input[name=email]").fill(local_stack["admin_email"])
        page.locator("input[name=password]").fill(local_stack["admin_password"])
        page.locator("form button[type=submit]").click()
        page.wait_for_url(f"{admin}/", timeout=10_000)
        # The dashboard (the page signing in lands on) shows the payment among the recent ones.
        recent = page.locator("section[aria-labelledby=recent-title]").inner_text()
        assert PLAYER in recent and "VIP" in recent, recent

        page.goto(f"{admin}/payments")
        page.get_by_label("Player (name or UUID)").fill(PLAYER)
        page.get_by_role("button", name="Search").click()
        row = page.locator("tbody tr", has_text=PLAYER)
        assert row.count() == 1 and "VIP" in row.inner_text()
        row.locator("a").first.click()
        page.wait_for_url(f"{admin}/payments/tbx-*", timeout=10_000)
        assert "queued (waiting for the server)" in page.content()

        page.get_by_role("button", name="Refund…").click()
        # Not one click: the confirmation says what will happen, and changes nothing yet.
        page.get_by_role("heading", name="Refund this payment?").wait_for(timeout=15_000)
        # No plugin fetched "add vip": it is withdrawn, and no "remove vip" follows.
        assert "were never fetched by a server" in page.content()
        assert "lp user {username} parent add vip" in page.content()
        assert page.get_by_label("Keep the never-fetched purchase commands queued", exact=False).count() == 1
        page.locator("form.confirm button[type=submit]").click()
        page.wait_for_url("**done=refunded", timeout=15_000)
        assert "Refunded. Never-fetched commands withdrawn, refund commands queued." in page.content()
        assert page.locator("tbody tr", has_text="parent remove vip").count() == 0
        assert "Refund" in page.locator("dl").first.inner_text()
    finally:
        context.close()

    secret = {"X-Tebex-Secret": local_stack["server_secret"]}
    with httpx.Client(timeout=10) as http:
        offline = http.get(f"{local_stack['plugin_url']}/queue/offline-commands", headers=secret).json()
    commands = [c["command"] for c in offline["commands"] if c["player"]["name"] == PLAYER]
    assert not [c for c in commands if "vip" in c], commands  # neither given nor taken away
