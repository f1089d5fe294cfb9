"""The control panel's sign-in in headless Chromium against `webstore serve`: signing in (and
failing to), back to the page asked for, the script served by the panel itself under its CSP,
the navigation on a phone, a session that expired, and a form whose CSRF token is wrong."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page

from webstore.admin import sessions
from webstore.repo.staff import StaffRepository
from webstore.services import build_services
from webstore.settings import Settings

pytestmark = pytest.mark.e2e


def watched(page: Page) -> list[str]:
    problems: list[str] = []

    def watch(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text or "Refused" in message.text:
            problems.append(message.text)

    page.on("console", watch)
    page.on("pageerror", lambda error: problems.append(str(error)))
    return problems


def sign_in(page: Page, creds: dict[str, Any], password: str | None = None) -> None:
    page.get_by_label("Email").fill(creds["admin_email"])
    page.get_by_label("Password").fill(password or creds["admin_password"])
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state()


def test_signing_in_fails_then_succeeds_and_returns_to_the_page_asked_for(
    browser: Browser, local_stack: dict[str, Any]
) -> None:
    context = browser.new_context()
    page = context.new_page()
    problems = watched(page)
    page.goto(f"{local_stack['admin_url']}/account")
    assert page.url == f"{local_stack['admin_url']}/login?next=/account"
    sign_in(page, local_stack, "certainly not the password")
    assert "Wrong email or password" in page.get_by_role("alert").inner_text()
    assert page.get_by_label("Email").input_value() == local_stack["admin_email"]
    assert page.get_by_label("Password").input_value() == ""  # never sent back
    sign_in(page, local_stack)
    assert page.url == f"{local_stack['admin_url']}/account"
    assert page.get_by_role("heading", name="Your account").is_visible()
    assert page.evaluate("typeof htmx") == "object"  # loaded from /static, allowed by script-src 'self'
    cookie = next(c for c in context.cookies() if c["name"] == sessions.COOKIE_NAME)
    assert cookie["httpOnly"] is True and cookie["sameSite"] == "Lax"
    assert page.evaluate("document.cookie") == ""  # out of scripts' reach
    assert problems == []
    context.close()


def test_the_navigation_collapses_on_a_phone(browser: Browser, local_stack: dict[str, Any]) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(local_stack["admin_url"])
    sign_in(page, local_stack)
    nav = page.get_by_role("navigation", name="Sections")
    payments = nav.get_by_role("link", name="Payments", exact=True)
    assert not payments.is_visible()  # folded on a phone
    nav.get_by_text("Menu").click()
    assert payments.is_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, "nothing wider than the phone"
    context.close()
    desktop = browser.new_context(viewport={"width": 1280, "height": 800})
    page = desktop.new_page()
    page.goto(local_stack["admin_url"])
    sign_in(page, local_stack)
    nav = page.get_by_role("navigation", name="Sections")
    assert not nav.get_by_text("Menu").is_visible()  # a sidebar, always open
    assert nav.get_by_role("link", name="Payments", exact=True).is_visible()
    desktop.close()


def test_a_form_with_a_wrong_csrf_token_is_refused_and_does_nothing(
    browser: Browser, local_stack: dict[str, Any]
) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(local_stack["admin_url"])
    sign_in(page, local_stack)
    page.locator('header form input[name="csrf"]').evaluate("input => input.value = 'forged'")
    page.get_by_role("button", name="Log out").click()
    page.wait_for_load_state()
    assert "refresh the page" in page.get_by_role("alert").inner_text()
    page.goto(local_stack["admin_url"])
    assert page.url.rstrip("/") == local_stack["admin_url"]  # still signed in
    page.get_by_role("button", name="Log out").click()  # the real token works
    page.wait_for_load_state()
    assert "/login" in page.url
    page.goto(local_stack["admin_url"])
    assert "/login" in page.url  # logged out for good
    context.close()


def _expired_cookie(creds: dict[str, Any]) -> str:
    """A session of the demo owner signed with the stack's key, that expired an hour ago."""
    services = build_services(
        Settings(
            table_name=creds["table"],
            dynamodb_endpoint=creds["dynamodb_endpoint"],
            region=creds["region"],
            events="local",
            storefront_url=creds["storefront_url"],
            operator_url=creds["operator_url"],
            webhook_key=creds["webhook_key"],
        )
    )
    repo = StaffRepository(services.table)
    login = repo.login_of(creds["admin_email"])
    assert login is not None
    member = repo.member(login.account_id, login.staff_id)
    assert member is not None
    hours = services.settings.admin_session_hours
    return sessions.issue(services, member, datetime.now(UTC) - timedelta(hours=hours + 1)).value


def test_an_expired_session_goes_back_to_the_sign_in_page(
    browser: Browser, local_stack: dict[str, Any]
) -> None:
    context = browser.new_context()
    host = local_stack["admin_url"].split("//", 1)[1].split(":")[0]
    context.add_cookies(
        [{"name": sessions.COOKIE_NAME, "value": _expired_cookie(local_stack), "domain": host, "path": "/"}]
    )
    page = context.new_page()
    page.goto(f"{local_stack['admin_url']}/account")
    assert page.url == f"{local_stack['admin_url']}/login?next=/account"
    sign_in(page, local_stack)
    assert page.url == f"{local_stack['admin_url']}/account"
    context.close()
