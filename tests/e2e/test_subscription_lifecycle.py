"""A subscription lives through two periods on the local stack (issue 12, Must show): bought in
headless Chromium, renewed by `webstore clock run --until` one period later (the renewal payment
in the operator interface, its renewal commands run once by a plugin-like client), cancelled by
the player on the manage page reached from the receipt, and ended by `clock run` after the
following period (the expiry commands run once, no further charge).

The stack is this module's own, its background clock stopped (`--clock-interval 0`): time moves
only when the test runs `clock run`, and the queue holds this player's commands alone."""

from __future__ import annotations

import json
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser

from tests.e2e.conftest import ReturnSite, WebhookReceiver, free_port, receiving, wait_for_port
from tests.support.local_stack import serving, webstore_tool
from webstore.storefront.return_urls import after_log_in

pytestmark = pytest.mark.e2e

NEXT_CHECK = 1  # seconds between queue polls the stack asks plugins for


@dataclass
class Stack:
    credentials_file: Path
    credentials: dict[str, Any]

    @property
    def operator_headers(self) -> dict[str, str]:
        return {"X-Tebex-Secret": self.credentials["server_secret"]}

    def operator(self) -> httpx.Client:
        base = self.credentials["plugin_url"]
        return httpx.Client(base_url=base, headers=self.operator_headers, timeout=10)

    def clock_run(self, until: datetime) -> list[str]:
        """`webstore clock run --local` as of `until`: the lines it printed."""
        run = webstore_tool(
            "clock", "run", "--until", until.isoformat(), "--local", str(self.credentials_file)
        )
        assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout}\n{run.stderr}"
        return run.stdout.strip().splitlines()


@pytest.fixture(scope="module")
def receiver() -> Iterator[WebhookReceiver]:
    yield from receiving(WebhookReceiver(free_port(), secret="lifecycle-webhook-secret"))


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, receiver: WebhookReceiver) -> Iterator[Stack]:
    creds_file = tmp_path_factory.mktemp("lifecycle") / "credentials.json"
    storefront, operator = free_port(), free_port()
    options = (
        "--clock-interval", "0",
        "--next-check", str(NEXT_CHECK),
        "--webhook", f"{receiver.url}#{receiver.secret}",
    )  # fmt: skip
    with serving(storefront, operator, creds_file, *options) as process:
        wait_for_port(storefront, process)
        wait_for_port(operator, process)
        yield Stack(creds_file, json.loads(creds_file.read_text()))


def run_queued_commands(operator: httpx.Client, expected: int, timeout: float = 60) -> list[str]:
    """A plugin's loop: poll /queue (respecting Retry-After and next_check), fetch the offline
    commands and each listed player's online commands, run them (here: note their text with the
    player's name put in) and acknowledge them with DELETE /queue. Stops once `expected`
    commands ran and two polls in a row found nothing more, or at the deadline."""
    ran: Counter[int] = Counter()
    texts: list[str] = []
    quiet_polls = 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not (len(texts) >= expected and quiet_polls >= 2):
        queue = operator.get("/queue")
        if queue.status_code == 429:
            time.sleep(float(queue.headers["retry-after"]))
            continue
        assert queue.status_code == 200, queue.text
        body = queue.json()
        commands: list[tuple[dict[str, Any], str]] = []
        if body["meta"]["execute_offline"]:
            offline = operator.get("/queue/offline-commands")
            assert offline.status_code == 200, offline.text
            commands += [(c, c["player"]["name"]) for c in offline.json()["commands"]]
        for player in body["players"]:
            online = operator.get(f"/queue/online-commands/{player['id']}")
            assert online.status_code == 200, online.text
            commands += [(c, player["name"]) for c in online.json()["commands"]]
        for command, name in commands:
            ran[command["id"]] += 1
            texts.append(command["command"].replace("{username}", name))
        if commands:
            deleted = operator.request("DELETE", "/queue", json={"ids": [c["id"] for c, _ in commands]})
            assert deleted.status_code == 204, deleted.text
        quiet_polls = 0 if commands or body["meta"]["more"] else quiet_polls + 1
        if not body["meta"]["more"]:
            time.sleep(body["meta"]["next_check"])
    assert not ran or set(ran.values()) == {1}, f"a command was handed out twice: {ran}"
    return texts


def player_payments(operator: httpx.Client, player: str) -> list[dict[str, Any]]:
    """The player's payments as the operator interface lists them, oldest first."""
    listed = operator.get("/payments", params={"limit": 100})
    assert listed.status_code == 200, listed.text
    return sorted((p for p in listed.json() if p["player"]["name"] == player), key=lambda p: p["id"])


def recurring_payment(operator: httpx.Client, reference: str) -> dict[str, Any]:
    shown = operator.get(f"/recurring-payments/{reference}")
    assert shown.status_code == 200, shown.text
    return shown.json()  # type: ignore[no-any-return]


def instant(text: str) -> datetime:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    assert moment.tzinfo is not None, text
    return moment


def test_a_subscription_renews_is_cancelled_and_expires(
    stack: Stack, receiver: WebhookReceiver, return_site: ReturnSite, browser: Browser
) -> None:
    player = f"Life_{uuid.uuid4().hex[:8]}"
    vip = ["lp user {p} parent add vip", "say {p} renewed VIP", "lp user {p} parent remove vip"]
    purchase, renewal, expiry = (command.format(p=player) for command in vip)
    headless = stack.credentials["headless_url"]
    host = headless.split("/api/")[0]

    # 1. The player buys VIP (package 1: a monthly subscription) in Chromium.
    with httpx.Client(timeout=10) as http:
        basket = http.post(
            f"{headless}/baskets",
            json={"complete_url": return_site.url("/thanks"), "cancel_url": return_site.url("/basket")},
        )
        assert basket.status_code in (200, 201), basket.text
        ident = basket.json()["data"]["ident"]
        added = http.post(f"{host}/api/baskets/{ident}/packages", json={"package_id": 1, "quantity": 1})
        assert added.status_code == 200, added.text
        checkout_link = added.json()["data"]["links"]["checkout"]
        [auth] = http.get(f"{headless}/baskets/{ident}/auth", params={"returnUrl": checkout_link}).json()

    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(auth["url"])
        page.get_by_label("Username").fill(player)
        page.get_by_role("button", name="Continue").click()
        page.wait_for_url(after_log_in(checkout_link), timeout=10_000)
        page.locator("#consent").check()
        page.get_by_role("button", name="Pay now").click()
        receipt_url = f"{checkout_link}/receipt"
        try:
            page.wait_for_url(receipt_url, timeout=30_000)
        except Exception as error:
            raise AssertionError(f"no receipt: {page.url}\n{page.content()[:2000]}") from error

        completed = receiver.wait_for(
            "payment.completed", lambda e: e["subject"]["customer"]["username"]["username"] == player
        )
        reference = completed["subject"]["recurring_payment_reference"]
        assert reference == completed["subject"]["transaction_id"]

        with stack.operator() as operator:
            assert run_queued_commands(operator, expected=1) == [purchase]
            [first] = player_payments(operator, player)
            assert first["txn_id"] == reference
            bought = recurring_payment(operator, reference)
            assert bought["status"]["id"] == 1 and bought["payment_sequence"] == 1, bought
            period_end = instant(bought["next_payment_date"])

            # 2. One period later: the saved card is charged, without the player.
            lines = stack.clock_run(period_end + timedelta(minutes=1))
            assert len(lines) == 2, lines
            assert lines[0].startswith(f"renewal charged: account 1 {reference} (payment "), lines
            assert "4.99 USD" in lines[0], lines
            assert lines[1].endswith(": 1 renewal charged"), lines

            first_again, second = player_payments(operator, player)
            assert first_again["txn_id"] == reference
            assert second["txn_id"] != reference and second["id"] > first["id"]
            assert (second["amount"], second["status"]) == ("4.99", "Complete"), second
            assert second["txn_id"] in lines[0], lines
            shown = operator.get(f"/payments/{second['txn_id']}")
            assert shown.status_code == 200, shown.text
            assert [p["name"] for p in shown.json()["packages"]] == ["VIP"], shown.json()
            renewed = recurring_payment(operator, reference)
            assert renewed["status"]["id"] == 1 and renewed["payment_sequence"] == 2, renewed
            next_end = instant(renewed["next_payment_date"])
            assert period_end + timedelta(days=27) < next_end < period_end + timedelta(days=32)
            renewal_completed = receiver.wait_for(
                "payment.completed", lambda e: e["subject"]["transaction_id"] == second["txn_id"]
            )
            assert renewal_completed["subject"]["recurring_payment_reference"] == reference
            receiver.wait_for("recurring-payment.renewed", lambda e: e["subject"]["reference"] == reference)

            # The plugin-like client runs the renewal commands, once.
            assert run_queued_commands(operator, expected=1) == [renewal]

        # 3. The player cancels on the manage page, reached from the receipt's link.
        page.goto(receipt_url)
        page.get_by_role("link", name="Manage or cancel your subscription").click()
        page.wait_for_url("**/subscriptions/**", timeout=10_000)
        manage_url = page.url
        assert reference in manage_url
        page.get_by_label("Why are you cancelling? (optional)").fill("Saving up")
        with page.expect_navigation(timeout=10_000):
            page.get_by_role("button", name="Cancel subscription").click()
        assert page.url == manage_url
        notice = page.locator("#notice").inner_text()
        assert f"ends on {next_end.strftime('%d %B %Y')}" in notice and "will not renew" in notice, notice
    finally:
        context.close()

    receiver.wait_for(
        "recurring-payment.cancellation.requested", lambda e: e["subject"]["reference"] == reference
    )
    with stack.operator() as operator:
        pending = recurring_payment(operator, reference)
        assert pending["cancel_reason"] == "Saving up" and pending["cancellation_requested_at"], pending
        assert pending["status"]["id"] == 1, "it runs until the end of the paid period"
        assert run_queued_commands(operator, expected=0) == [], "a cancellation queues nothing"

        # 4. After the following period: no charge, the perk ends with its expiry commands.
        lines = stack.clock_run(next_end + timedelta(minutes=1))
        assert len(lines) == 2, lines
        assert lines[0].startswith(f"cancelled: account 1 {reference}"), lines
        assert lines[1].endswith(": 1 cancelled"), lines
        assert run_queued_commands(operator, expected=1) == [expiry]

        assert [p["txn_id"] for p in player_payments(operator, player)] == [reference, second["txn_id"]]
        ended = recurring_payment(operator, reference)
        assert ended["status"]["id"] == 3 and ended["status"]["description"] == "Cancelled", ended
        assert ended["payment_sequence"] == 2 and ended["next_payment_date"] is None, ended
        assert ended["cancelled_at"] is not None, ended
        receiver.wait_for(
            "recurring-payment.ended",
            lambda e: e["subject"]["reference"] == reference and e["subject"]["status"]["id"] == 3,
        )

        # Time goes on; nothing more happens to this subscription.
        later = next_end + timedelta(days=62)
        assert stack.clock_run(later) == [f"Nothing due up to {later.isoformat()}"]
        assert run_queued_commands(operator, expected=0) == []
        assert len(player_payments(operator, player)) == 2
