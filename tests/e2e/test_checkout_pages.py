"""The checkout and receipt in headless Chromium against the local stack: on a phone (390 px)
nothing scrolls sideways and the pay button fits; on a desktop the order and the payment sit
side by side; the totals a player reads add up; a subscription is paid after its consent."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
LONG_NOTE = "Deliver-to-the-north-base-near-the-big-oak-tree-" * 3  # one long unbreakable word


def make_basket(stack: dict[str, Any], *packages: dict[str, Any], codes: bool = False) -> str:
    """A basket through the storefront API; with `codes`: two coupons, a creator code and a
    fresh gift card of 5.00 (made through the operator interface). Its checkout URL."""
    base = stack["headless_url"]
    host = base.split("/api/")[0]
    with httpx.Client(timeout=10) as http:
        created = http.post(f"{base}/baskets", json={"username": "Phone_Player"})
        ident = created.json()["data"]["ident"]
        for package in packages:
            added = http.post(f"{host}/api/baskets/{ident}/packages", json=package)
            assert added.status_code == 200, added.text
        if codes:
            card = http.post(
                f"{stack['plugin_url']}/gift-cards",
                json={"amount": 5, "note": "e2e"},
                headers={"X-Tebex-Secret": stack["server_secret"]},
            )
            assert card.status_code == 200, card.text
            for kind, field, value in (
                ("coupons", "coupon_code", "SWORD1"),
                ("coupons", "coupon_code", "WELCOME10"),
                ("creator-codes", "creator_code", "STEVE"),
                ("giftcards", "card_number", card.json()["data"]["code"]),
            ):
                applied = http.post(f"{base}/baskets/{ident}/{kind}", json={field: value})
                assert applied.status_code == 200, applied.text
        link: str = http.get(f"{base}/baskets/{ident}").json()["data"]["links"]["checkout"]
    return link


def scrolls_sideways(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth > window.innerWidth"))


def shown_rows(page: Page) -> dict[str, Decimal]:
    """The totals as a player reads them (label → signed amount from the visible text)."""
    rows: dict[str, Decimal] = {}
    for row in page.locator("table.totals tr").all():
        label = row.locator("th").evaluate("th => th.firstChild.textContent").strip()
        text = (
            row.locator("td").inner_text().replace("\u2212", "-").replace("$", "").replace("USD", "").strip()
        )
        rows[label] = Decimal(text)
    return rows


def test_on_a_phone_nothing_scrolls_sideways_and_the_rows_add_up(
    local_stack: dict[str, Any], browser: Browser
) -> None:
    checkout = make_basket(
        local_stack,
        {"package_id": 10, "quantity": 2},
        {"package_id": 20, "quantity": 3},
        {"package_id": 13, "quantity": 1, "variable_data": {"note": LONG_NOTE}},
        codes=True,
    )
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        page.goto(checkout)
        assert not scrolls_sideways(page), "the checkout scrolls sideways at 390 px"
        pay = page.get_by_role("button", name="Pay now")
        box = pay.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        rows = shown_rows(page)
        discounts = sum((v for k, v in rows.items() if k.startswith(("Sale", "Coupon"))), Decimal(0))
        assert rows["Subtotal"] + discounts + rows.get("Sales tax", Decimal(0)) == rows["Total"]
        assert (
            rows["Total"] + sum((v for k, v in rows.items() if k.startswith("Gift card")), Decimal(0))
            == rows["Amount due"]
        )
        assert page.get_by_label("Email for your receipt").is_visible()

        page.get_by_label("Email for your receipt").fill("phone@example.com")
        pay.click()
        page.wait_for_url("**/receipt", timeout=30_000)
        assert page.locator("#status").inner_text() == "Paid"
        assert page.locator("#txn").inner_text().startswith("tbx-")
        assert not scrolls_sideways(page), "the receipt scrolls sideways at 390 px"
        assert shown_rows(page)["Amount paid"] == rows["Amount due"]
    finally:
        context.close()


def test_on_a_desktop_the_order_and_the_payment_sit_side_by_side(
    local_stack: dict[str, Any], browser: Browser
) -> None:
    checkout = make_basket(local_stack, {"package_id": 1, "quantity": 1})
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        page.goto(checkout)
        order = page.locator("section[aria-labelledby=order-title]").bounding_box()
        payment = page.locator("section[aria-labelledby=pay-title]").bounding_box()
        assert order is not None and payment is not None
        assert order["x"] + order["width"] <= payment["x"] and abs(order["y"] - payment["y"]) < 5
        assert not scrolls_sideways(page)
        unlabelled = page.evaluate(
            "[...document.querySelectorAll('input:not([type=hidden]), button')]"
            ".filter(e => !(e.labels && e.labels.length) && !e.textContent.trim()).length"
        )
        assert unlabelled == 0
        for _ in range(20):  # by keyboard to the email field (links of the order come first)
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.id") == "email":
                break
        assert page.evaluate("document.activeElement.id") == "email"
        outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert outline == "solid"  # a visible focus ring

        page.get_by_role("button", name="Pay now").click()  # the consent is required: nothing is sent
        assert page.url == checkout
        page.get_by_label("I agree that Demo Craft charges").check()
        page.get_by_role("button", name="Pay now").click()
        page.wait_for_url("**/receipt", timeout=30_000)
        assert page.get_by_role("heading", name="Your subscription").is_visible()
    finally:
        context.close()
