"""A renewal the bank asks the player to authenticate, end to end on the local stack without
Stripe (issue 13, the Subscriptions bullet): a VIP bought in Chromium with the sandbox's card
4000 0027 6000 3184, `webstore clock run --until` a month later declines its renewal with a
link (the shop's webhook carries it as `action_url`), the player follows it from the manage
page to the sandbox's page and confirms, and the renewal is recorded once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta

import httpx
import pytest
from playwright.sync_api import Browser

from tests.e2e.conftest import ReturnSite, WebhookReceiver, free_port, receiving, wait_for_port
from tests.e2e.test_local_tools import Stack, webstore
from tests.support.local_stack import serving
from webstore.storefront.return_urls import after_log_in

pytestmark = pytest.mark.e2e

RENEWAL_COMMAND = "say {username} renewed VIP"


@pytest.fixture(scope="module")
def receiver() -> Iterator[WebhookReceiver]:
    yield from receiving(WebhookReceiver(free_port(), secret="authentication-webhook-secret"))


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, receiver: WebhookReceiver) -> Iterator[Stack]:
    """A stack of this module's own, its clock stopped: time moves only with `clock run`."""
    creds_file = tmp_path_factory.mktemp("authentication") / "credentials.json"
    storefront, operator = free_port(), free_port()
    options = ("--clock-interval", "0", "--webhook", f"{receiver.url}#{receiver.secret}")
    with serving(storefront, operator, creds_file, *options) as process:
        wait_for_port(storefront, process)
        wait_for_port(operator, process)
        yield Stack(process, creds_file, json.loads(creds_file.read_text()))


def test_a_renewal_the_bank_asks_to_authenticate_is_completed_by_the_player(
    stack: Stack, receiver: WebhookReceiver, return_site: ReturnSite, browser: Browser
) -> None:
    creds = stack.credentials
    base = creds["headless_url"]
    host = base.split("/api/")[0]
    with httpx.Client(timeout=10) as http:
        basket = http.post(f"{base}/baskets", json={"complete_url": return_site.url("/thanks")}).json()[
            "data"
        ]
        ident = basket["ident"]
        added = http.post(f"{host}/api/baskets/{ident}/packages", json={"package_id": 1})
        assert added.status_code == 200, added.text
        checkout_link = added.json()["data"]["links"]["checkout"]
        [auth] = http.get(f"{base}/baskets/{ident}/auth", params={"returnUrl": checkout_link}).json()

    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(auth["url"])
        page.get_by_label("Username").fill("Bank_e2e")
        page.get_by_role("button", name="Continue").click()
        page.wait_for_url(after_log_in(checkout_link), timeout=10_000)
        page.locator("#card").fill("4000 0027 6000 3184")
        page.locator("#consent").check()
        page.get_by_role("button", name="Pay now").click()
        page.wait_for_url(f"{checkout_link}/receipt", timeout=30_000)
    finally:
        context.close()
    completed = receiver.wait_for(
        "payment.completed", lambda e: e["subject"]["customer"]["username"]["username"] == "Bank_e2e"
    )
    reference = completed["subject"]["transaction_id"]

    headers = {"X-Tebex-Secret": creds["server_secret"]}
    with httpx.Client(timeout=10) as http:
        shown = http.get(f"{creds['plugin_url']}/recurring-payments/{reference}", headers=headers).json()
    renewal_date = datetime.fromisoformat(shown["next_payment_date"])
    month_later = (renewal_date + timedelta(hours=1)).isoformat()  # the renewal, not yet its retry
    run = webstore("clock", "run", "--until", month_later, "--local", str(stack.credentials_file))
    assert run.returncode == 0, run.stderr
    assert f"renewal declined: account 1 {reference} (attempt 1: The bank asks" in run.stdout, run.stdout
    changed = receiver.wait_for(
        "recurring-payment.status-changed", lambda e: e["subject"]["reference"] == reference, timeout=20
    )
    action_url = changed["subject"]["action_url"]
    assert action_url.startswith(f"{creds['storefront_url']}/sandbox/authentication/"), action_url
    assert changed["subject"]["status"] == {"id": 2, "description": "Past due"}

    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(changed["subject"]["manage_url"])
        assert "Your bank needs you to confirm the renewal payment" in page.content()
        page.get_by_role("link", name="Complete payment").click()
        page.wait_for_url(action_url, timeout=10_000)
        assert "$4.99 USD" in page.locator("#amount").inner_text()
        with page.expect_navigation(timeout=10_000):
            page.get_by_role("button", name="Confirm payment").click()
        assert "Payment confirmed" in page.content(), page.content()[:2000]
        page.goto(changed["subject"]["manage_url"])
        assert "Your bank needs you to confirm" not in page.content()
    finally:
        context.close()

    renewed = receiver.wait_for(
        "recurring-payment.renewed", lambda e: e["subject"]["reference"] == reference, timeout=20
    )
    assert renewed["subject"]["status"] == {"id": 1, "description": "Active"}
    assert "action_url" not in renewed["subject"]
    retry = (renewal_date + timedelta(days=2)).isoformat()  # the retry's day: nothing left
    again = webstore("clock", "run", "--until", retry, "--local", str(stack.credentials_file))
    assert again.returncode == 0 and again.stdout.strip() == f"Nothing due up to {retry}", again.stdout
    with httpx.Client(timeout=10) as http:
        queue = http.get(f"{creds['plugin_url']}/queue/offline-commands", headers=headers).json()
        listed = http.get(f"{creds['plugin_url']}/payments", headers=headers).json()
    renewals = [c for c in queue["commands"] if c["command"] == RENEWAL_COMMAND]
    assert [c["player"]["name"] for c in renewals] == ["Bank_e2e"], queue
    mine = [p for p in listed if p["player"]["name"] == "Bank_e2e"]
    assert len(mine) == 2, mine
