"""A player subscribes in headless Chromium on the local stack, then manages it as a player
would: the receipt's link to the manage page, cancel (the page says when it ends), undo; the
shop's webhook carries the same signed page as `manage_url`, and the operator interface shows
the cancellation while it is pending."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser

from tests.e2e.conftest import ReturnSite, WebhookReceiver
from webstore.storefront.return_urls import after_log_in

pytestmark = pytest.mark.e2e


def test_a_player_cancels_and_undoes_in_the_browser(
    local_stack: dict[str, Any], return_site: ReturnSite, webhook_receiver: WebhookReceiver, browser: Browser
) -> None:
    base = local_stack["headless_url"]
    host = base.split("/api/")[0]
    with httpx.Client(timeout=10) as http:
        basket = http.post(
            f"{base}/baskets",
            json={"complete_url": return_site.url("/thanks"), "cancel_url": return_site.url("/basket")},
        ).json()["data"]
        ident = basket["ident"]
        added = http.post(f"{host}/api/baskets/{ident}/packages", json={"package_id": 1, "quantity": 1})
        assert added.status_code == 200, added.text
        checkout_link = added.json()["data"]["links"]["checkout"]
        [auth] = http.get(f"{base}/baskets/{ident}/auth", params={"returnUrl": checkout_link}).json()

    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(auth["url"])
        page.get_by_label("Username").fill("Manage_e2e")
        page.get_by_role("button", name="Continue").click()
        page.wait_for_url(after_log_in(checkout_link), timeout=10_000)
        page.locator("#consent").check()
        page.get_by_role("button", name="Pay now").click()
        page.wait_for_url(f"{checkout_link}/receipt", timeout=30_000)

        page.get_by_role("link", name="Manage or cancel your subscription").click()
        page.wait_for_url("**/subscriptions/**", timeout=10_000)
        manage_url = page.url
        assert "VIP" in page.content()
        page.get_by_label("Why are you cancelling? (optional)").fill("Taking a break")
        with page.expect_navigation(timeout=10_000):
            page.get_by_role("button", name="Cancel subscription").click()
        assert page.url == manage_url
        assert page.locator("#notice").count() == 1, page.content()[:3000]
        notice = page.locator("#notice").inner_text()
        assert "ends on" in notice and "will not renew" in notice

        with httpx.Client(timeout=10) as http:
            reference = manage_url.rsplit("/", 1)[1].split(".")[1]
            shown = http.get(
                f"{local_stack['plugin_url']}/recurring-payments/{reference}",
                headers={"X-Tebex-Secret": local_stack["server_secret"]},
            ).json()
            assert shown["cancel_reason"] == "Taking a break"
            assert shown["cancellation_requested_at"] is not None

        with page.expect_navigation(timeout=10_000):
            page.get_by_role("button", name="Keep my subscription").click()
        assert page.url == manage_url
        assert page.get_by_role("button", name="Cancel subscription").is_visible()
    finally:
        context.close()

    completed = webhook_receiver.wait_for(
        "payment.completed", lambda e: e["subject"]["customer"]["username"]["username"] == "Manage_e2e"
    )
    assert completed["subject"]["manage_url"] == manage_url
    webhook_receiver.wait_for(
        "recurring-payment.cancellation.requested", lambda e: e["subject"]["reference"] == reference
    )
    webhook_receiver.wait_for(
        "recurring-payment.cancellation.aborted", lambda e: e["subject"]["reference"] == reference
    )
