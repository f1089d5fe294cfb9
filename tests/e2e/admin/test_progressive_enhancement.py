"""htmx in headless Chromium: the dashboard's ranges and the payments search swap the page's
content in place (the document is not reloaded, the address still changes), and the same links
and forms work as plain HTML without JavaScript."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.e2e


def sign_in(page: Page, creds: dict[str, Any]) -> None:
    admin = creds["admin_url"]
    page.goto(f"{admin}/login")
    page.locator("input[name=email]").fill(creds["admin_email"])
    page.locator("input[name=password]").fill(creds["admin_password"])
    page.locator("form button[type=submit]").click()
    page.wait_for_url(f"{admin}/", timeout=10_000)


@pytest.mark.parametrize("javascript", [True, False], ids=["htmx", "no-javascript"])
def test_ranges_and_searches_swap_the_content_in_place(
    local_stack: dict[str, Any], browser: Browser, javascript: bool
) -> None:
    admin = local_stack["admin_url"]
    context = browser.new_context(java_script_enabled=javascript)
    page = context.new_page()
    try:
        sign_in(page, local_stack)
        if javascript:
            page.evaluate("window.__notReloaded = true")
        page.get_by_role("link", name="7 days").click()
        page.wait_for_url("**/?days=7", timeout=10_000)
        assert page.locator("#range-title").inner_text() == "Last 7 days"
        if javascript:
            assert page.evaluate("window.__notReloaded === true"), "the range reloaded the document"

        page.goto(f"{admin}/payments")
        if javascript:
            page.evaluate("window.__notReloaded = true")
        page.get_by_label("Player (name or UUID)").fill("nobody_here")
        page.get_by_role("button", name="Search").click()
        page.wait_for_url("**/payments?*player=nobody_here*", timeout=10_000)
        assert page.locator("#content").count() == 1
        if javascript:
            assert page.evaluate("window.__notReloaded === true"), "the search reloaded the document"
    finally:
        context.close()
