"""Every shop page passes axe-core (pinned in package.json, installed by `npm ci`) in headless
Chromium against the local stack, on a desktop and a phone: no serious or critical violation;
and every page's HTML stays under 60 KB (docs/shop.md, "Accessibility"). Every page in English
and, through the footer's language switcher, in German; the gift-card balance page (a card's
balance, a refused code); the home page and a package under each header style with a logo; the
maintenance page (the look changed through the panel's Look form, and put back)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, expect

from tests.support.shop_look import logo_server, shop_look

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[3]
# `npm ci` puts it here; AXE_CORE_JS names another copy (a worktree sharing node_modules).
AXE = Path(os.environ.get("AXE_CORE_JS") or ROOT / "node_modules" / "axe-core" / "axe.min.js")
BLOCKING = {"serious", "critical"}
MAX_PAGE_BYTES = 60_000
PAGES = ["/", "/category/items", "/category/ranks", "/package/10", "/page/rules", "/login", "/nowhere"]
GIFT_CARD = "GIFT-0000-0000-0001"  # the demo store's card (shared/webstore/demo/store.json)
DEVICES: dict[str, ViewportSize] = {
    "desktop": {"width": 1280, "height": 900},
    "phone": {"width": 390, "height": 844},
}


def violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations of the page as loaded."""
    page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.html).slice(0, 3)}))"
    )
    return [v for v in found if v["impact"] in BLOCKING]


@pytest.mark.parametrize("device", list(DEVICES))
def test_every_shop_page_has_no_serious_accessibility_violation_and_stays_small(
    local_stack: dict[str, Any], browser: Browser, device: str
) -> None:
    assert AXE.is_file(), f"axe-core is not installed at {AXE}: run `npm ci` (package.json pins it)"
    shop = local_stack["shop_url"]
    # The axe script is injected by the test: the shop's policy (no inline script) is bypassed
    # for it, not changed.
    context = browser.new_context(viewport=DEVICES[device], is_mobile=device == "phone", bypass_csp=True)
    page = context.new_page()
    found: dict[str, list[dict[str, Any]]] = {}
    sizes: dict[str, int] = {}
    try:
        page.set_content(
            '<!doctype html><html lang="en"><title>t</title><main><img src="x.png"></main></html>'
        )
        assert "image-alt" in {v["id"] for v in violations(page)}  # the check finds what it should
        for path in PAGES:
            response = page.goto(shop + path)
            assert response is not None and response.status in (200, 404), path
            sizes[path] = len(response.body())
            found[path] = violations(page)
        page.goto(shop + "/package/10")
        page.get_by_role("button", name="Add to basket").click()
        page.wait_for_url(f"{shop}/basket")
        sizes["/basket"] = len(page.content().encode())
        found["/basket"] = violations(page)
    finally:
        context.close()
    print(json.dumps(sizes, indent=1))  # the sizes, for `pytest -s`
    blocking = {path: v for path, v in found.items() if v}
    assert not blocking, json.dumps(blocking, indent=1)
    assert max(sizes.values()) <= MAX_PAGE_BYTES, sizes


@dataclass
class Walk:
    """Pages visited in a browser context: each one's HTML size and its blocking violations."""

    shop: str
    sizes: dict[str, int] = field(default_factory=dict)
    found: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def visit(self, page: Page, name: str, path: str, status: int = 200) -> None:
        response = page.goto(self.shop + path)
        assert response is not None and response.status == status, (name, response and response.status)
        self.record(page, name, len(response.body()))

    def record(self, page: Page, name: str, size: int | None = None) -> None:
        self.sizes[name] = len(page.content().encode()) if size is None else size
        self.found[name] = violations(page)

    def assert_passes(self) -> None:
        print(json.dumps(self.sizes, indent=1))  # the sizes, for `pytest -s`
        blocking = {name: v for name, v in self.found.items() if v}
        assert not blocking, json.dumps(blocking, indent=1)
        too_big = {name: size for name, size in self.sizes.items() if size > MAX_PAGE_BYTES}
        assert not too_big, too_big


def new_context(browser: Browser, device: str) -> BrowserContext:
    # The axe script is injected by the test: the shop's policy is bypassed for it, not changed.
    return browser.new_context(viewport=DEVICES[device], is_mobile=device == "phone", bypass_csp=True)


def in_german(page: Page, shop: str) -> None:
    """The footer's language switcher, as a player uses it: Deutsch, remembered for the context."""
    page.goto(shop + "/")
    switcher = page.get_by_role("navigation", name="Language")
    expect(switcher.locator("[aria-current=true]")).to_have_text("English")
    switcher.get_by_role("link", name="Deutsch").click()
    page.wait_for_url(shop + "/")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    switcher = page.get_by_role("navigation", name="Sprache")
    expect(switcher.locator("[aria-current=true]")).to_have_text("Deutsch")


@pytest.mark.parametrize("device", list(DEVICES))
def test_the_gift_card_page_and_every_page_in_german_pass_and_stay_small(
    local_stack: dict[str, Any], browser: Browser, device: str
) -> None:
    walk = Walk(local_stack["shop_url"])
    context = new_context(browser, device)
    german = new_context(browser, device)
    try:
        page = context.new_page()
        walk.visit(page, "gift card", f"/gift-card?code={GIFT_CARD}")
        expect(page.locator("#giftcard")).to_contain_text("$10.00")
        walk.visit(page, "gift card refused", "/gift-card?code=NO-SUCH-CARD", 404)
        expect(page.locator("#form-error")).to_be_visible()

        page = german.new_page()
        in_german(page, walk.shop)
        for path in PAGES:
            walk.visit(page, f"de {path}", path, 404 if path == "/nowhere" else 200)
            expect(page.locator("html")).to_have_attribute("lang", "de")
        walk.visit(page, "de gift card", f"/gift-card?code={GIFT_CARD}")
        walk.visit(page, "de gift card refused", "/gift-card?code=NO-SUCH-CARD", 404)
        page.goto(walk.shop + "/package/10")
        page.locator("form[action='/basket/packages'] button[type=submit]").click()
        page.wait_for_url(walk.shop + "/basket")
        walk.record(page, "de /basket")
    finally:
        context.close()
        german.close()
    walk.assert_passes()


@pytest.mark.parametrize("device", list(DEVICES))
def test_each_header_style_and_the_maintenance_page_pass_and_stay_small(
    local_stack: dict[str, Any], browser: Browser, device: str
) -> None:
    """The look is the shared stack's: each change is made through the panel's Look form and put
    back when its block ends, whatever happened in it."""
    walk = Walk(local_stack["shop_url"])
    context = new_context(browser, device)
    german = new_context(browser, device)
    try:
        page, page_de = context.new_page(), german.new_page()
        in_german(page_de, walk.shop)
        with logo_server() as logo:
            for style in ("banner", "compact", "centered"):
                with shop_look(local_stack, header_style="" if style == "banner" else style, logo=logo):
                    for path in ("/", "/package/10"):
                        walk.visit(page, f"{style} {path}", path)
                        expect(page.locator(f"header.site.header-{style}")).to_have_count(1)
                        loaded = page.locator("header.site .brand img").evaluate("img => img.naturalWidth")
                        assert loaded > 0, "the logo did not load"
        with shop_look(local_stack, maintenance="on", maintenance_message="", maintenance_allow="Notch"):
            for path in ("/", "/basket"):
                walk.visit(page, f"maintenance {path}", path, 503)
                expect(page.locator("#maintenance-message")).to_be_visible()
                expect(page.locator("#maintenance-login")).to_be_visible()  # the list names a player
            walk.visit(page_de, "de maintenance /", "/", 503)
            expect(page_de.locator("html")).to_have_attribute("lang", "de")
        walk.visit(page, "reopened /", "/")  # the look is back: the shop is open
    finally:
        context.close()
        german.close()
    walk.assert_passes()
