"""The shop's log-in on the hosted auth page, in headless Chromium against a local stack of its
own (`webstore serve`): the owner chooses "Player log-in: on the hosted log-in page" in panel →
Shop → Look; a player with a package in the basket follows the basket's "Log in now", lands on
the hosted page in the store's brand, types a name and comes back to the basket, logged in, the
package still there. With and without JavaScript; no page breaks its policy (console)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import WebhookReceiver, started_stack
from tests.support.chromium import console_problems

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def local_stack(
    tmp_path_factory: pytest.TempPathFactory, webhook_receiver: WebhookReceiver
) -> Iterator[dict[str, Any]]:
    """A stack of its own: the log-in setting chosen here stays out of the other shop tests."""
    yield from started_stack(tmp_path_factory, webhook_receiver)


def choose_the_hosted_page(stack: dict[str, Any], browser: Browser) -> None:
    admin = stack["admin_url"]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems = console_problems(page)
    page.goto(f"{admin}/login")
    page.fill("#email", stack["admin_email"])
    page.fill("#password", stack["admin_password"])
    page.click("button[type=submit]")
    page.wait_for_url(f"{admin}/")
    page.goto(f"{admin}/shop/look")
    page.get_by_label("Player log-in").select_option(label="On the hosted log-in page")
    with page.expect_navigation():
        page.get_by_role("button", name="Save and publish").click()
    expect(page.get_by_text("The look is saved and the shop shows it")).to_be_visible()
    page.goto(f"{admin}/shop/look")  # as stored
    expect(page.get_by_label("Player log-in")).to_have_value("hosted")
    assert problems == []
    context.close()


@pytest.mark.parametrize("javascript", [False, True], ids=["no-js", "js"])
def test_a_player_logs_in_on_the_hosted_page_and_comes_back_to_the_shop(
    local_stack: dict[str, Any], browser: Browser, javascript: bool
) -> None:
    shop = local_stack["shop_url"].rstrip("/")
    hosted = urlsplit(local_stack["headless_url"])
    hosted_auth = f"{hosted.scheme}://{hosted.netloc}/auth/"
    choose_the_hosted_page(local_stack, browser)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=javascript)
    page = context.new_page()
    problems = console_problems(page)
    name = f"Hosted{secrets.token_hex(3)}"

    page.goto(f"{shop}/package/10")
    package = page.get_by_role("heading", level=1).inner_text()
    page.get_by_role("button", name="Add to basket").click()
    page.wait_for_url(f"{shop}/basket")
    expect(page.locator("#basket")).to_contain_text(package)

    page.get_by_role("link", name="Log in now").click()
    page.wait_for_url(f"{hosted_auth}**")
    assert parse_qs(urlsplit(page.url).query)["returnUrl"] == [f"{shop}/login?next=%2Fbasket"]
    expect(page.get_by_role("heading", level=1)).to_have_text("Log in to Demo Craft")
    page.get_by_label("Username").fill(name)
    page.get_by_role("button", name="Continue").click()

    page.wait_for_url(f"{shop}/basket")
    account = page.get_by_role("navigation", name="Account")
    expect(account.locator(".who")).to_have_text(name)
    expect(account.get_by_role("button", name="Log out")).to_be_visible()
    expect(page.locator("#basket")).to_contain_text(package)  # the same basket, now the player's
    expect(page.get_by_role("link", name="Log in now")).to_have_count(0)

    # The header's "Log in" once logged out: the hosted page again, for a new basket.
    account.get_by_role("button", name="Log out").click()
    page.wait_for_url(f"{shop}/")
    page.get_by_role("navigation", name="Account").get_by_role("link", name="Log in").click()
    page.wait_for_url(f"{hosted_auth}**")
    expect(page.get_by_label("Username")).to_have_value("")
    assert problems == []
    context.close()
