"""Staff in headless Chromium against the local stack: the owner invites a support member
through the Staff page (the password is shown once), the member signs in and sees only the
payments, players and queue sections; the others answer the 403 page, and their controls are
hidden where support may look but not change (the catalog has no forms for them)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.e2e

SUPPORT_EMAIL = "support-e2e@example.com"


def sign_in(page: Page, admin: str, email: str, password: str) -> None:
    page.goto(f"{admin}/login")
    page.locator("input[name=email]").fill(email)
    page.locator("input[name=password]").fill(password)
    page.locator("form button[type=submit]").click()
    page.wait_for_url(f"{admin}/", timeout=10_000)


def test_the_owner_invites_support_who_cannot_open_the_rest(
    local_stack: dict[str, Any], browser: Browser
) -> None:
    admin = local_stack["admin_url"]
    owner = browser.new_context()
    page = owner.new_page()
    try:
        sign_in(page, admin, local_stack["admin_email"], local_stack["admin_password"])
        page.goto(f"{admin}/staff")
        page.locator("#invite #email").fill(SUPPORT_EMAIL)
        page.locator("#invite #role").select_option("support")
        page.locator("#invite button[type=submit]").click()
        password = page.locator("#password").inner_text().strip()
        assert len(password) >= 10
        page.goto(f"{admin}/staff")  # shown once: the list never shows it again
        assert SUPPORT_EMAIL in page.content() and password not in page.content()
    finally:
        owner.close()

    member = browser.new_context()
    page = member.new_page()
    try:
        sign_in(page, admin, SUPPORT_EMAIL, password)
        nav = page.locator("nav.sections").inner_text()
        for shown in ("Payments", "Players", "Command queue"):
            assert shown in nav, nav
        for hidden in ("Catalog", "Servers", "Webhooks", "Settings", "Audit log", "Staff"):
            assert hidden not in nav, nav
        for path in ("/catalog", "/settings", "/webhooks", "/staff", "/audit"):
            response = page.goto(f"{admin}{path}")
            assert response is not None and response.status == 403, path
            assert page.locator("nav.sections").count() == 0, f"{path}: the 403 page shows the navigation"
        response = page.goto(f"{admin}/payments")
        assert response is not None and response.status == 200
        # A form support may not use is refused even when posted by hand (CSRF token and all).
        page.goto(f"{admin}/payments")
        token = page.locator("input[name=csrf]").first.get_attribute("value")
        refused = page.request.post(
            f"{admin}/staff", form={"csrf": token or "", "email": "x@example.com", "role": "owner"}
        )
        assert refused.status == 403
    finally:
        member.close()
