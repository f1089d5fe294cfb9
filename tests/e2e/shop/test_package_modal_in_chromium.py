"""The package modal in headless Chromium against the local stack: a card's "View" opens the
package in place (description, price, its form), the form adds to the basket from there, Escape
closes it and gives focus back; without JavaScript the same link is the package page. The
modal passes axe-core (no serious or critical violation) and breaks no policy."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, ConsoleMessage, expect

from tests.e2e.shop.test_shop_accessibility import AXE, violations

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_a_card_opens_the_package_in_place_and_adds_from_there(
    local_stack: dict[str, Any], browser: Browser, device: str
) -> None:
    shop = local_stack["shop_url"]
    size = {"width": 1280, "height": 900} if device == "desktop" else {"width": 390, "height": 844}
    context = browser.new_context(viewport=size, is_mobile=device == "phone")
    page = context.new_page()
    problems: list[str] = []

    def watch(message: ConsoleMessage) -> None:
        if "Failed to load resource" not in message.text and (
            message.type == "error" or "Content Security Policy" in message.text
        ):
            problems.append(message.text)

    page.on("console", watch)
    try:
        page.goto(f"{shop}/category/items")
        view = page.locator("#package-11").get_by_role("link", name="View")
        view.click()
        dialog = page.get_by_role("dialog")
        expect(dialog).to_be_visible()
        assert page.url == f"{shop}/category/items"  # in place: no navigation
        expect(dialog.get_by_role("heading", level=1)).to_have_text("1,000 Coins")
        expect(dialog.get_by_role("heading", level=1)).to_be_focused()
        expect(dialog.locator(".price")).to_contain_text("$")
        expect(dialog.get_by_label("Gift to a player")).to_be_visible()
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
        expect(view).to_be_focused()  # focus back where the player was

        view.click()
        expect(dialog).to_be_visible()
        dialog.get_by_label("World").select_option(label="Creative")
        dialog.get_by_label("Quantity").fill("2")
        dialog.get_by_role("button", name="Add to basket").click()
        page.wait_for_url(f"{shop}/basket")
        expect(page.locator("#basket")).to_contain_text("world: creative")
        expect(page.get_by_label("Quantity of 1,000 Coins")).to_have_value("2")
    finally:
        context.close()
    assert problems == [], problems


def test_without_javascript_the_card_link_is_the_package_page(
    local_stack: dict[str, Any], browser: Browser
) -> None:
    shop = local_stack["shop_url"]
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(f"{shop}/category/items")
        page.locator("#package-11").get_by_role("link", name="View").click()
        page.wait_for_url(f"{shop}/package/11")
        expect(page.get_by_role("heading", level=1)).to_have_text("1,000 Coins")
    finally:
        context.close()


def test_the_open_modal_has_no_serious_accessibility_violation(
    local_stack: dict[str, Any], browser: Browser
) -> None:
    assert AXE.is_file(), f"axe-core is not installed at {AXE}: run `npm ci`"
    context = browser.new_context(bypass_csp=True)  # for the injected axe script only
    page = context.new_page()
    try:
        page.goto(f"{local_stack['shop_url']}/category/items")
        page.locator("#package-11").get_by_role("link", name="View").click()
        expect(page.get_by_role("dialog")).to_be_visible()
        assert violations(page) == []
    finally:
        context.close()
