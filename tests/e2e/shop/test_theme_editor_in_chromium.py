"""The owner edits the shop's `index.html` in the panel, in headless Chromium against a local
stack of its own (`webstore serve`): previews it in a new tab, is refused a template with an
unknown variable (its line shown, the shop unchanged), publishes, publishes again, rolls back to
the first version, exports the theme, serves the house's file, and imports the file back: the
shop shows each step. No panel page breaks its policy (console)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import WebhookReceiver, started_stack
from tests.support.chromium import console_problems

pytestmark = pytest.mark.e2e

MARK = "{% block content %}"


@pytest.fixture(scope="module")
def local_stack(
    tmp_path_factory: pytest.TempPathFactory, webhook_receiver: WebhookReceiver
) -> Iterator[dict[str, Any]]:
    """A stack of its own: the templates published here stay out of the other shop tests."""
    yield from started_stack(tmp_path_factory, webhook_receiver)


def sign_in(page: Page, stack: dict[str, Any]) -> None:
    """The demo's owner signs in to the panel."""
    page.goto(f"{stack['admin_url']}/login")
    page.fill("#email", stack["admin_email"])
    page.fill("#password", stack["admin_password"])
    page.click("button[type=submit]")
    page.wait_for_url(f"{stack['admin_url']}/")


def with_mark(house: str, text: str) -> str:
    return house.replace(MARK, MARK + f'<p id="owner">{text}</p>', 1)


def test_the_owner_edits_previews_publishes_rolls_back_exports_and_imports_index_html(
    local_stack: dict[str, Any], browser: Browser, tmp_path: Path
) -> None:
    shop = local_stack["shop_url"]
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    page = context.new_page()
    problems = console_problems(page)
    player = context.new_page()

    def shop_says() -> str:
        player.goto(shop)
        owner = player.locator("#owner")
        return owner.inner_text() if owner.count() else ""

    sign_in(page, local_stack)
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Shop").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Shop")
    page.get_by_role("link", name="index.html").first.click()
    editor = page.get_by_label("Template")
    house = editor.input_value()
    assert MARK in house

    # Preview: the page with the draft, in a new tab; nothing published.
    editor.fill(with_mark(house, "Previewed"))
    with context.expect_page() as opened:
        page.get_by_role("button", name="Preview").click()
    preview = opened.value
    preview.wait_for_load_state()
    expect(preview.locator("#owner")).to_have_text("Previewed")
    preview.close()
    assert shop_says() == ""

    # A template with an unknown variable: refused with its line, as typed; the shop unchanged.
    broken = house.replace(MARK, MARK + "\n{{ no_such_variable }}", 1)
    page.get_by_label("Template").fill(broken)
    page.get_by_role("button", name="Save and publish").click()
    expect(page.locator("#form-error")).to_contain_text("line 3")
    assert "no_such_variable" in page.get_by_label("Template").input_value()
    assert shop_says() == ""

    for text in ("First", "Second"):
        page.get_by_label("Template").fill(with_mark(house, text))
        page.get_by_role("button", name="Save and publish").click()
        expect(page.locator(".done")).to_contain_text("published")
        assert shop_says() == text

    page.get_by_role("button", name="Publish version 1").click()
    expect(page.locator(".done")).to_contain_text("Version 1 published")
    assert shop_says() == "First"

    # Export, back to the house's file, import the file: the first version serves again.
    page.get_by_role("link", name="All templates").click()
    with page.expect_download() as downloading:
        page.get_by_role("link", name="Export the published templates").click()
    exported = tmp_path / "shop-theme.json"
    downloading.value.save_as(exported)
    assert '"index.html"' in exported.read_text()
    page.get_by_role("link", name="index.html").first.click()
    page.get_by_role("button", name="Serve the house's file again").click()
    expect(page.locator(".done")).to_contain_text("house")
    assert shop_says() == ""
    page.get_by_role("link", name="All templates").click()
    page.get_by_label("Import a theme file").set_input_files(exported)
    page.get_by_role("button", name="Import and publish").click()
    expect(page.locator(".done")).to_contain_text("Theme imported")
    assert shop_says() == "First"
    assert problems == []
    context.close()


def test_the_owner_changes_colours_logo_and_sale_banner_previews_and_publishes(
    local_stack: dict[str, Any], browser: Browser
) -> None:
    """Shop → Look, as an owner without code: the preview shows the draft in a new tab while the
    shop keeps its look; "Save and publish" and the shop shows the logo, colours and banner."""
    shop = local_stack["shop_url"]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    player = context.new_page()
    logo = "https://cdn.example.invalid/demo-logo.png"
    try:
        sign_in(page, local_stack)
        page.get_by_role("navigation", name="Sections").get_by_role("link", name="Shop").click()
        page.locator("#look-link").click()
        page.get_by_label("Logo").fill(logo)
        page.get_by_label("Brand colour").fill("#8a2be2")
        page.get_by_label("Accent colour").fill("#0b6e4f")
        page.get_by_label("Sale banner").fill("Crates half price <today>")

        with context.expect_page() as opened:
            page.get_by_role("button", name="Preview").click()
        preview = opened.value
        preview.wait_for_load_state()
        expect(preview.locator("#sale-banner")).to_have_text("Crates half price <today>")
        assert "--brand:#8a2be2" in preview.content()
        preview.close()
        player.goto(shop)
        expect(player.locator("#sale-banner")).not_to_have_text("Crates half price <today>")

        page.get_by_label("Brand colour").fill("purple")  # refused, naming the field; nothing saved
        page.get_by_role("button", name="Save and publish").click()
        expect(page.locator("main")).to_contain_text("Brand colour: a colour as #rrggbb")
        player.goto(shop)
        expect(player.locator("#sale-banner")).not_to_have_text("Crates half price <today>")

        page.get_by_label("Brand colour").fill("#8a2be2")
        page.get_by_role("button", name="Save and publish").click()
        expect(page.locator(".done")).to_contain_text("The look is saved")
        player.goto(shop)
        expect(player.locator("#sale-banner")).to_have_text("Crates half price <today>")
        expect(player.locator(f'header img[src="{logo}"]')).to_have_count(1)
        brand = player.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--brand')")
        assert brand.strip() == "#8a2be2", brand
    finally:
        context.close()
