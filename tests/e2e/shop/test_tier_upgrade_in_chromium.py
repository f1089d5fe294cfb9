"""A player who holds a tier sees the upgrade price, in headless Chromium against the local
stack: they log in by username in the shop, subscribe to the demo's VIP rank (the tiered "Ranks"
category) through the sandbox checkout, return to the shop by the receipt's link, and the Ranks
category then names their rank and offers MVP for the difference (docs/shop.md, "Tiered
categories")."""

from __future__ import annotations

import re
import secrets
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

pytestmark = pytest.mark.e2e


def test_a_player_with_a_tier_sees_the_upgrade_price(local_stack: dict[str, Any], browser: Browser) -> None:
    shop = local_stack["shop_url"]
    player = f"Tier{secrets.token_hex(3)}"
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{shop}/category/ranks")
        expect(page.get_by_role("heading", level=1)).to_have_text("Ranks")
        expect(page.locator("#current-tier")).to_have_count(0)  # a guest holds no tier

        page.get_by_role("link", name="Log in", exact=True).click()
        page.get_by_label("Username").fill(player)
        page.get_by_role("button", name="Continue").click()
        expect(page.locator(".who")).to_have_text(player)
        page.goto(f"{shop}/package/1")
        expect(page.get_by_role("heading", level=1)).to_have_text("VIP")
        page.get_by_role("button", name="Add to basket").click()
        page.wait_for_url(f"{shop}/basket")
        page.get_by_role("button", name=re.compile("Check out")).click()
        page.wait_for_url(re.compile(r"/checkout/[^/]+$"))
        page.locator("#consent").check()  # a subscription: the recurring charge agreed to
        page.get_by_role("button", name="Pay now").click()
        page.wait_for_url(re.compile(r"/receipt"), timeout=30_000)
        page.get_by_role("link", name="Visit Demo Craft").click()
        page.wait_for_url(re.compile(rf"^{re.escape(shop)}/?$"))

        page.goto(f"{shop}/category/ranks")
        expect(page.locator("#current-tier")).to_have_text(re.compile(r"Your rank:\s*VIP"))
        mvp = page.locator("article", has_text="MVP")
        expect(mvp).to_contain_text(re.compile(r"Upgrade now for \$\d+\.\d\d"))
        page.goto(f"{shop}/package/2")
        expect(page.locator("main")).to_contain_text(re.compile(r"Upgrade now for \$\d+\.\d\d"))
    finally:
        context.close()
