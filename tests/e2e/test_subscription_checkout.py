"""A subscription bought in headless Chromium against the local stack (issue 12, item 4): the
checkout page shows what renews, for how much, how often and how to cancel, and the browser will
not submit the form until the consent box is ticked; then the payment starts a recurring payment
whose reference the payment and the shop's webhooks carry."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser

from tests.e2e.conftest import ReturnSite, WebhookReceiver
from webstore.storefront.return_urls import after_log_in

pytestmark = pytest.mark.e2e


def test_a_player_agrees_to_the_recurring_charge_and_subscribes(
    local_stack: dict[str, Any], return_site: ReturnSite, webhook_receiver: WebhookReceiver, browser: Browser
) -> None:
    base = local_stack["headless_url"]
    host = base.split("/api/")[0]
    complete_url = return_site.url("/thanks")
    with httpx.Client(timeout=10) as http:
        basket = http.post(
            f"{base}/baskets",
            json={
                "complete_url": complete_url,
                "complete_auto_redirect": True,
                "custom": {"shop_order": "E2E-SUB"},
            },
        ).json()["data"]
        ident = basket["ident"]
        added = http.post(f"{host}/api/baskets/{ident}/packages", json={"package_id": 1})
        assert added.status_code == 200, added.text
        checkout_link = added.json()["data"]["links"]["checkout"]
        [auth] = http.get(f"{base}/baskets/{ident}/auth", params={"returnUrl": checkout_link}).json()

    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(auth["url"])
        page.get_by_label("Username").fill("Sub_e2e")
        page.get_by_role("button", name="Continue").click()
        page.wait_for_url(after_log_in(checkout_link), timeout=10_000)
        assert "VIP: $4.99 USD every month" in page.content()
        assert "Cancel any time" in page.content()
        consent = page.locator("#consent")
        page.get_by_role("button", name="Pay now").click()  # unticked: the browser keeps the form
        page.wait_for_timeout(500)
        assert page.url == after_log_in(checkout_link) and not consent.is_checked()
        consent.check()
        page.get_by_role("button", name="Pay now").click()
        try:
            page.wait_for_url(complete_url, timeout=30_000)
        except Exception as error:
            raise AssertionError(f"not back at the shop: {page.url}\n{page.content()[:2000]}") from error
    finally:
        context.close()

    completed = webhook_receiver.wait_for(
        "payment.completed", lambda e: e["subject"]["custom"] == {"shop_order": "E2E-SUB"}
    )
    reference = completed["subject"]["transaction_id"]
    assert completed["subject"]["recurring_payment_reference"] == reference
    assert completed["subject"]["payment_sequence"] == "recurring"
    started = webhook_receiver.wait_for(
        "recurring-payment.started", lambda e: e["subject"]["reference"] == reference
    )
    assert started["subject"]["status"] == {"id": 1, "description": "Active"}
    assert started["subject"]["next_payment_at"] is not None
    assert started["subject"]["price"] == {"amount": 4.99, "currency": "USD"}
