"""A player buys in the shop in headless Chromium against the local stack (`webstore serve`),
with and without JavaScript, on a desktop and a phone: home → category → package → a variable
→ add to basket → coupon and creator code → quantity → log in by username → a gift for another
player → check out (sandbox) → the receipt's "Visit the store" link returns to the shop; the
payment's commands reach the plugin's queue once. No page breaks its policy (console)."""

from __future__ import annotations

import re
import secrets
import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.support.chromium import console_problems

pytestmark = pytest.mark.e2e

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def submit(page: Page, form: str, button: str, *, javascript: bool) -> None:
    """Press a basket form's button and wait for the basket it answers (Post/Redirect/Get): the
    next page without JavaScript; with it, htmx's request and its swap in place."""
    with page.expect_response(lambda r: r.url.endswith("/basket") and r.request.method == "GET"):
        page.locator(form).get_by_role("button", name=button).first.click()
    if javascript:
        expect(page.locator(".htmx-request, .htmx-swapping, .htmx-settling")).to_have_count(0)
    else:
        page.wait_for_load_state()


@pytest.mark.parametrize(
    ("device", "javascript"),
    [("desktop", True), ("desktop", False), ("phone", True), ("phone", False)],
)
def test_a_player_buys_in_the_shop(
    local_stack: dict[str, Any], browser: Browser, device: str, javascript: bool
) -> None:
    shop = local_stack["shop_url"]
    buyer, friend = f"Buyer{secrets.token_hex(3)}", f"Friend{secrets.token_hex(3)}"
    size = DESKTOP if device == "desktop" else PHONE
    context = browser.new_context(viewport=size, is_mobile=device == "phone", java_script_enabled=javascript)
    page = context.new_page()
    problems = console_problems(page)
    try:
        page.goto(shop)
        expect(page.locator("#hero-title")).to_have_text("Demo Craft")
        assert page.locator("#sale-banner").inner_text().startswith("Crate week")
        page.get_by_role("navigation", name="Categories").get_by_role("link", name="Items").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Items")
        page.get_by_role("link", name="1,000 Coins").first.click()
        expect(page.get_by_role("heading", level=1)).to_have_text("1,000 Coins")
        page.get_by_label("World").select_option(label="Creative")  # a dropdown variable
        page.get_by_role("button", name="Add to basket").click()
        page.wait_for_url(f"{shop}/basket")
        expect(page.locator("#basket")).to_contain_text("world: creative")

        page.get_by_label("Coupon").fill("WELCOME10")
        submit(page, "form[action='/basket/coupons']", "Apply", javascript=javascript)
        expect(page.locator("#basket .chip")).to_have_text("WELCOME10")
        page.get_by_label("Creator code").fill("STEVE")
        submit(page, "form[action='/basket/creator-code']", "Apply", javascript=javascript)
        expect(page.get_by_label("Creator code")).to_have_value("STEVE")
        page.get_by_label("Quantity of 1,000 Coins").fill("2")
        submit(page, "form[action='/basket/quantity']", "Update", javascript=javascript)
        expect(page.get_by_label("Quantity of 1,000 Coins")).to_have_value("2")
        assert page.url == f"{shop}/basket"  # PRG (no JS) or swapped in place (htmx)

        page.get_by_role("link", name="Log in", exact=True).click()
        page.get_by_label("Username").fill(buyer)
        page.get_by_role("button", name="Continue").click()
        expect(page.locator(".who")).to_have_text(buyer)

        page.goto(f"{shop}/package/10")
        page.get_by_label("Gift to a player").fill(friend)
        page.get_by_role("button", name="Add to basket").click()
        page.wait_for_url(f"{shop}/basket")
        expect(page.locator("#basket")).to_contain_text(f"Gift for {friend}")
        due = page.locator("#checkout").inner_text()

        page.get_by_role("button", name=re.compile("Check out")).click()
        page.wait_for_url(re.compile(r"/checkout/[^/]+$"))
        amount = due.split("·")[1].strip()
        assert amount in page.content(), (amount, page.content()[:3000])  # the same figure to the cent
        page.get_by_role("button", name="Pay now").click()
        page.wait_for_url(re.compile(r"/receipt"), timeout=30_000)
        page.get_by_role("link", name="Visit Demo Craft").click()
        page.wait_for_url(re.compile(rf"^{re.escape(shop)}/?$"))
        expect(page.locator("#hero-title")).to_have_text("Demo Craft")
        expect(page.locator("#basket-count")).to_have_text("Basket (0)")  # the paid basket is done
    finally:
        context.close()
    assert problems == [], problems

    with httpx.Client(timeout=10) as http:
        secret = {"X-Tebex-Secret": local_stack["server_secret"]}
        plugin = local_stack["plugin_url"]
        payments = [
            p for p in http.get(f"{plugin}/payments", headers=secret).json() if p["player"]["name"] == buyer
        ]
        assert len(payments) == 1, payments
        due_now = http.get(f"{plugin}/queue", headers=secret)
        if due_now.status_code == 429:  # another test polled within next_check
            time.sleep(int(due_now.headers["Retry-After"]))
            due_now = http.get(f"{plugin}/queue", headers=secret)
        players = {p["name"]: p for p in due_now.json()["players"]}
        assert friend in players, players  # the gift's commands wait for the friend to be online
        offline = http.get(f"{plugin}/queue/offline-commands", headers=secret).json()["commands"]
        online = http.get(f"{plugin}/queue/online-commands/{players[friend]['id']}", headers=secret)
        queued = offline + online.json()["commands"]
    ids = [c["id"] for c in queued]
    assert len(ids) == len(set(ids))
    mine = [c["command"] for c in offline if c["player"]["name"] == buyer]
    assert mine == ["eco give {username} 1000"] * 2, mine  # quantity 2: twice, not more
    gift = [c["command"] for c in online.json()["commands"]]
    assert gift == ["give {username} diamond_sword 1"], gift  # the friend's, once
