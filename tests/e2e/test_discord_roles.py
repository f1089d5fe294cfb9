"""Discord roles on the local stack (issue 28, Must show): `webstore serve --discord-base-url`
pointed at the loopback stand-in (tests/support/discord_standin.py); the owner connects the bot
and VIP's role in the panel (over HTTP); the player logs in on the hosted auth page in Chromium
with "Also link my Discord account" ticked, goes through the stand-in's OAuth2 consent page and
back, buys VIP → the role granted once; `webstore clock run` through the renewal → no call to
Discord; a refund in the panel → the role removed.

The other ways a role follows the purchase run on the same stack over HTTP, each with its own
player linked through the same OAuth2 dance without a browser: a subscription cancelled in the
panel and ended by `clock run` → removed; a second package granting the same role (its rule saved
in panel → Discord) keeps it until both end; a chargeback → removed; a member who left the server
and came back gets the role from "Reconcile now"; the stand-in answering 429 with `retry_after`,
or a 5xx → the grant lands once, on the delivery's retry. Panel → Discord's delivery log shows
each call (done, retry)."""

from __future__ import annotations

import html
import itertools
import json
import re
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import httpx
import pytest
from playwright.sync_api import Browser

from tests.e2e.conftest import ReturnSite, free_port, wait_for_port
from tests.support.checkouts import Order, open_checkout, pay
from tests.support.discord_standin import StandInDiscord, running
from tests.support.local_stack import serving, webstore_tool
from tests.support.panel import http_sign_in

pytestmark = pytest.mark.e2e

GUILD, VIP_ROLE, BOT_ROLE = "900000000000000001", "910", "950"
STEVE_DISCORD = "700000000000000001"
VIP = 1  # the demo store's monthly VIP
SWORD = 10  # the demo store's Diamond Sword: bought once, never expires
LOG_ROW = re.compile(  # a row of panel → Discord's delivery log
    r"<tr><td>([^<]*)</td><td>\d+</td><td>(\d+)</td><td>\d+</td><td>(\d+)</td><td>(\w+)</td>"
    r'<td class="status-\w+">(\w+)</td><td>([^<]*)</td><td>([^<]*)</td>'
)
_member_ids = itertools.count(2)
LogEntry = tuple[datetime, str, str, str, str]  # when, action, status, Discord's answer, why


@dataclass
class Stack:
    credentials_file: Path
    credentials: dict[str, Any]
    discord: StandInDiscord

    def clock_run(self, until: datetime) -> list[str]:
        run = webstore_tool(
            "clock", "run", "--until", until.isoformat(), "--local", str(self.credentials_file)
        )
        assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout}\n{run.stderr}"
        return run.stdout.strip().splitlines()

    def panel(self) -> tuple[httpx.Client, str]:
        creds = self.credentials
        cookies, csrf = http_sign_in(creds["admin_url"], creds["admin_email"], creds["admin_password"])
        return httpx.Client(base_url=creds["admin_url"], cookies=cookies, timeout=20), csrf

    def panel_post(self, path: str, fields: dict[str, str]) -> None:
        """A panel form posted by the owner: 303 (done)."""
        panel, csrf = self.panel()
        with panel:
            answer = panel.post(path, data={"csrf": csrf, **fields})
        assert answer.status_code == 303, f"{path}: {answer.status_code}\n{answer.text}"

    def payments_of(self, player: str) -> list[dict[str, Any]]:
        """The player's payments as the operator interface lists them."""
        with httpx.Client(base_url=self.credentials["plugin_url"], timeout=10) as operator:
            operator.headers["X-Tebex-Secret"] = self.credentials["server_secret"]
            listed = operator.get("/payments", params={"limit": 100})
        assert listed.status_code == 200, listed.text
        return [p for p in listed.json() if p["player"]["name"] == player]

    def subscription(self, reference: str) -> dict[str, Any]:
        with httpx.Client(base_url=self.credentials["plugin_url"], timeout=10) as operator:
            operator.headers["X-Tebex-Secret"] = self.credentials["server_secret"]
            shown = operator.get(f"/recurring-payments/{reference}")
        assert shown.status_code == 200, shown.text
        return dict(shown.json())

    def delivery_log(self, discord_user: str) -> list[LogEntry]:
        """Panel → Discord's delivery log of the user's VIP role, oldest first: (when, action,
        status, Discord's answer, why)."""
        panel, _ = self.panel()
        with panel:
            page = panel.get("/discord")
        assert page.status_code == 200, page.text
        return [
            (datetime.fromisoformat(at), action, status, html.unescape(answer), html.unescape(why))
            for at, user, role, action, status, answer, why in reversed(LOG_ROW.findall(page.text))
            if user == discord_user and role == VIP_ROLE
        ]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    discord = StandInDiscord()
    discord.add_guild(GUILD, "Craft", {VIP_ROLE: ("VIP", 2), BOT_ROLE: ("Store bot", 5)}, BOT_ROLE)
    discord.add_user(STEVE_DISCORD, "steve")
    discord.guilds[GUILD].members[STEVE_DISCORD] = set()  # already on the server
    creds_file = tmp_path_factory.mktemp("discord") / "credentials.json"
    storefront, operator = free_port(), free_port()
    with running(discord) as served:
        base = served.base_url.removesuffix("/api/v10")
        options = ("--clock-interval", "0", "--discord-base-url", base)
        with serving(storefront, operator, creds_file, *options) as process:
            wait_for_port(storefront, process)
            wait_for_port(operator, process)
            credentials = json.loads(creds_file.read_text())
            wait_for_port(int(credentials["admin_url"].rsplit(":", 1)[1]), process)
            yield Stack(creds_file, credentials, served)


@pytest.fixture(scope="module")
def connected(stack: Stack) -> Stack:
    """The owner connected the store's application and bot in panel → Discord, and gave VIP the
    VIP role (removed when the purchase ends)."""
    discord = stack.discord
    stack.panel_post(
        "/discord/app",
        {
            "client_id": discord.client_id,
            "client_secret": discord.client_secret,
            "bot_token": discord.bot_token,
            "public_key": "ab" * 32,
            "guilds_join": "1",
        },
    )
    save_rule(stack, VIP)
    return stack


def save_rule(stack: Stack, package_id: int) -> None:
    """Panel → Discord: the package grants the VIP role, removed when the purchase ends."""
    stack.panel_post(
        "/discord/rules",
        {"package_id": str(package_id), "guild_id": GUILD, "role_ids": VIP_ROLE, "remove_on_end": "1"},
    )


def eventually(check: Callable[[], bool], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(f"not within {timeout:g} s: {what}")


def role_puts(discord: StandInDiscord, user: str = STEVE_DISCORD) -> list[tuple[str, str]]:
    """The calls Discord applied to the user's VIP role."""
    return [c for c in discord.changes() if c[1] == f"/guilds/{GUILD}/members/{user}/roles/{VIP_ROLE}"]


def new_member(discord: StandInDiscord) -> str:
    """A Discord user, already on the server (no roles)."""
    user = f"7000000000000{next(_member_ids):05d}"
    discord.add_user(user, f"member{user[-5:]}")
    discord.join(GUILD, user)
    return user


def linked_player(stack: Stack, discord_user: str) -> str:
    """A new player who linked `discord_user` over HTTP, as from the checkout page's "Link
    Discord": a basket logged in to them, the store's link route sends them to the stand-in's
    consent page (state, PKCE), "Authorize" brings them back with the code."""
    player = f"Dc_{uuid.uuid4().hex[:8]}"
    headless = stack.credentials["headless_url"]
    host = headless.split("/api/")[0]
    with httpx.Client(timeout=20) as http:
        basket = http.post(f"{headless}/baskets", json={"username": player})
        assert basket.status_code in (200, 201), basket.text
        ident = basket.json()["data"]["ident"]
        to_discord = http.get(f"{host}/discord/link", params={"basket": ident})
        assert to_discord.status_code in (302, 303), to_discord.text
        consent_url = to_discord.headers["location"]
        assert consent_url.startswith(stack.discord.authorize_url), consent_url
        stack.discord.signed_in = discord_user
        consent = http.get(consent_url)
        assert consent.status_code == 200, consent.text
        found = re.search(r'id="authorize" href="([^"]+)"', consent.text)
        assert found, consent.text
        back = http.get(urljoin(consent_url, html.unescape(found[1])), follow_redirects=True)
    assert back.status_code == 200, back.text
    assert f"Linked to Discord as {stack.discord.users[discord_user]}." in back.text, back.text
    return player


def buy(stack: Stack, player: str, package_id: int) -> str:
    """The player buys the package on the hosted checkout page (over HTTP): the payment's
    transaction id."""
    before = {p["txn_id"] for p in stack.payments_of(player)}
    with httpx.Client(timeout=30) as http:
        checkout = open_checkout(http, stack.credentials, Order(player, [(package_id, 1)]))
        paid = pay(http, stack.credentials, checkout)
    assert paid.paid, (paid.status, paid.location)
    [txn] = [p["txn_id"] for p in stack.payments_of(player) if p["txn_id"] not in before]
    return str(txn)


def has_vip(stack: Stack, user: str, timeout: float = 30) -> None:
    eventually(lambda: stack.discord.roles_of(GUILD, user) == {VIP_ROLE}, f"VIP held by {user}", timeout)


def statuses(log: list[LogEntry]) -> list[tuple[str, str]]:
    """(action, status) of each delivery in the log."""
    return [(action, status) for _, action, status, _, _ in log]


def test_link_in_chromium_buy_vip_renew_refund(
    connected: Stack, return_site: ReturnSite, browser: Browser
) -> None:
    stack = connected
    discord = stack.discord
    player = f"Dc_{uuid.uuid4().hex[:8]}"
    headless = stack.credentials["headless_url"]
    host = headless.split("/api/")[0]
    with httpx.Client(timeout=10) as http:
        basket = http.post(
            f"{headless}/baskets",
            json={"complete_url": return_site.url("/thanks"), "cancel_url": return_site.url("/basket")},
        )
        ident = basket.json()["data"]["ident"]
        added = http.post(f"{host}/api/baskets/{ident}/packages", json={"package_id": VIP, "quantity": 1})
        assert added.status_code == 200, added.text
        checkout_link = added.json()["data"]["links"]["checkout"]
        [auth] = http.get(f"{headless}/baskets/{ident}/auth", params={"returnUrl": checkout_link}).json()

    discord.signed_in = STEVE_DISCORD
    context = browser.new_context()
    page = context.new_page()
    try:
        # 1. Log in with the Discord box ticked: the stand-in's consent page, then back.
        page.goto(auth["url"])
        page.get_by_label("Username").fill(player)
        page.locator("#discord").check()
        page.get_by_role("button", name="Continue").click()
        page.wait_for_url(f"{discord.authorize_url}**", timeout=15_000)
        page.get_by_role("link", name="Authorize").click()
        page.wait_for_url("**/discord/link?**", timeout=15_000)
        assert "Linked to Discord as steve." in page.content()
        page.get_by_role("link", name="Back", exact=True).click()
        page.wait_for_url(f"{checkout_link}**", timeout=15_000)

        # 2. Buy VIP: the role granted once.
        page.locator("#consent").check()
        page.get_by_role("button", name="Pay now").click()
        page.wait_for_url(f"{checkout_link}/receipt", timeout=30_000)
    finally:
        context.close()
    eventually(lambda: discord.roles_of(GUILD, STEVE_DISCORD) == {VIP_ROLE}, "VIP granted")
    time.sleep(1)  # any duplicate delivery would land by now
    assert role_puts(discord) == [("PUT", f"/guilds/{GUILD}/members/{STEVE_DISCORD}/roles/{VIP_ROLE}")]

    # 3. The renewal a period later: no call to Discord at all.
    with httpx.Client(base_url=stack.credentials["plugin_url"], timeout=10) as operator:
        operator.headers["X-Tebex-Secret"] = stack.credentials["server_secret"]
        payments = [
            p
            for p in operator.get("/payments", params={"limit": 100}).json()
            if p["player"]["name"] == player
        ]
        [bought] = payments
        reference = bought["txn_id"]
        shown = operator.get(f"/recurring-payments/{reference}").json()
    period_end = datetime.fromisoformat(shown["next_payment_date"].replace("Z", "+00:00"))
    before = discord.changes()
    lines = stack.clock_run(period_end + timedelta(minutes=1))
    assert any(line.startswith(f"renewal charged: account 1 {reference}") for line in lines), lines
    assert discord.changes() == before

    # 4. A refund in the panel: the role removed.
    panel, csrf = stack.panel()
    with panel:
        refunded = panel.post(
            f"/payments/{reference}/refund", data={"csrf": csrf, "confirm": "yes", "keep": "yes"}
        )
        assert refunded.status_code == 303, refunded.text
    # The renewal payment still stands: refund it too, so VIP ends.
    with httpx.Client(base_url=stack.credentials["plugin_url"], timeout=10) as operator:
        operator.headers["X-Tebex-Secret"] = stack.credentials["server_secret"]
        mine = [
            p
            for p in operator.get("/payments", params={"limit": 100}).json()
            if p["player"]["name"] == player
        ]
    panel, csrf = stack.panel()
    with panel:
        for payment in mine:
            if payment["txn_id"] != reference:
                done = panel.post(
                    f"/payments/{payment['txn_id']}/refund",
                    data={"csrf": csrf, "confirm": "yes", "keep": "yes"},
                )
                assert done.status_code == 303, done.text
    eventually(lambda: discord.roles_of(GUILD, STEVE_DISCORD) == set(), "VIP removed")
    assert [c[0] for c in role_puts(discord)] == ["PUT", "DELETE"]


def test_cancel_and_expire_removes_the_role(connected: Stack) -> None:
    stack, user = connected, new_member(connected.discord)
    player = linked_player(stack, user)
    reference = buy(stack, player, VIP)
    has_vip(stack, user)

    # Cancelled in the panel: the role stays for the paid period.
    stack.panel_post(f"/subscriptions/{reference}/cancel", {"reason": "player asked"})
    shown = stack.subscription(reference)
    period_end = datetime.fromisoformat(shown["next_payment_date"].replace("Z", "+00:00"))
    time.sleep(1)  # a wrongful revoke would land by now
    assert stack.discord.roles_of(GUILD, user) == {VIP_ROLE}

    # `clock run` past the period's end: the subscription ends, the role goes.
    lines = stack.clock_run(period_end + timedelta(minutes=1))
    assert any(line.startswith(f"cancelled: account 1 {reference}") for line in lines), lines
    assert stack.discord.roles_of(GUILD, user) == set()
    assert [c[0] for c in role_puts(stack.discord, user)] == ["PUT", "DELETE"]
    log = stack.delivery_log(user)
    assert statuses(log) == [("grant", "done"), ("revoke", "done")]
    assert log[-1][4] == "recurring-payment.status-changed", log


def test_second_package_keeps_the_role_until_both_end(connected: Stack) -> None:
    stack, user = connected, new_member(connected.discord)
    save_rule(stack, SWORD)  # the Diamond Sword grants the VIP role too
    player = linked_player(stack, user)
    subscription = buy(stack, player, VIP)
    has_vip(stack, user)
    sword = buy(stack, player, SWORD)
    time.sleep(1)  # a second grant would land by now
    assert len(role_puts(stack.discord, user)) == 1

    # VIP refunded: the Diamond Sword still grants the role.
    refund = {"confirm": "yes", "keep": "yes"}
    stack.panel_post(f"/payments/{subscription}/refund", refund)
    time.sleep(2)  # a wrongful revoke would land by now
    assert stack.discord.roles_of(GUILD, user) == {VIP_ROLE}
    assert [c[0] for c in role_puts(stack.discord, user)] == ["PUT"]

    # The Diamond Sword refunded too: nothing grants it any more.
    stack.panel_post(f"/payments/{sword}/refund", refund)
    eventually(lambda: stack.discord.roles_of(GUILD, user) == set(), "VIP removed")
    assert [c[0] for c in role_puts(stack.discord, user)] == ["PUT", "DELETE"]
    log = stack.delivery_log(user)
    assert statuses(log) == [("grant", "done"), ("revoke", "done")]
    assert log[-1][4] == "payment.refunded", log


def test_chargeback_removes_the_role(connected: Stack) -> None:
    stack, user = connected, new_member(connected.discord)
    player = linked_player(stack, user)
    txn = buy(stack, player, VIP)
    has_vip(stack, user)

    stack.panel_post(f"/payments/{txn}/chargeback", {"confirm": "yes", "keep": "yes"})
    eventually(lambda: stack.discord.roles_of(GUILD, user) == set(), "VIP removed")
    assert [c[0] for c in role_puts(stack.discord, user)] == ["PUT", "DELETE"]
    log = stack.delivery_log(user)
    assert statuses(log) == [("grant", "done"), ("revoke", "done")]
    assert log[-1][4] == "payment.dispute.opened", log


def test_member_who_left_and_rejoined_gets_the_role_back(connected: Stack) -> None:
    stack, discord = connected, connected.discord
    user = new_member(discord)
    player = linked_player(stack, user)
    buy(stack, player, VIP)
    has_vip(stack, user)

    discord.leave(GUILD, user)  # Discord forgets a leaver's roles
    discord.join(GUILD, user)
    assert discord.roles_of(GUILD, user) == set()
    stack.panel_post("/discord/reconcile", {})  # "Reconcile now"
    assert discord.roles_of(GUILD, user) == {VIP_ROLE}
    assert [c[0] for c in role_puts(discord, user)] == ["PUT", "PUT"]
    log = stack.delivery_log(user)
    assert statuses(log) == [("grant", "done"), ("grant", "done")]
    assert log[-1][4] == "reconcile", log


def test_rate_limited_and_failing_discord_deliver_once_later(connected: Stack) -> None:
    """The serve process's Discord worker retries a delivery Discord refused for now on the
    queue's schedule (30 s first, as SQS in AWS); a short `retry_after` the adapter waits out
    itself."""
    stack, discord = connected, connected.discord
    save_rule(stack, SWORD)  # bought once: one event, one delivery
    limited, failing, briefly = new_member(discord), new_member(discord), new_member(discord)
    players = [linked_player(stack, user) for user in (limited, failing, briefly)]
    discord.fail_next(429, retry_after=3, match=f"/members/{limited}/roles/")  # beyond the adapter's wait
    discord.fail_next(503, match=f"/members/{failing}/roles/")
    discord.fail_next(429, retry_after=0.5, match=f"/members/{briefly}/roles/")  # waited out
    for player in players:
        buy(stack, player, SWORD)

    # The first tries, in the log: owed.
    eventually(lambda: statuses(stack.delivery_log(limited)) == [("grant", "retry")], "429 logged")
    eventually(lambda: statuses(stack.delivery_log(failing)) == [("grant", "retry")], "503 logged")
    assert discord.roles_of(GUILD, limited) == discord.roles_of(GUILD, failing) == set()
    has_vip(stack, briefly)

    # The retries: each role granted once.
    has_vip(stack, limited, timeout=90)
    has_vip(stack, failing, timeout=90)
    time.sleep(1)  # a duplicate would land by now
    for user in (limited, failing, briefly):
        path = f"/api/v10/guilds/{GUILD}/members/{user}/roles/{VIP_ROLE}"
        assert [r for r in discord.requests if r == ("PUT", path)] == [("PUT", path)] * 2, user
        assert role_puts(discord, user) == [("PUT", path.removeprefix("/api/v10"))], user
    log = stack.delivery_log(limited)
    assert statuses(log) == [("grant", "retry"), ("grant", "done")], log
    assert "429" in log[0][3] and "retry after 3.0s" in log[0][3], log
    assert log[1][0] - log[0][0] >= timedelta(seconds=20), log  # the queue's retry, not at once
    log = stack.delivery_log(failing)
    assert statuses(log) == [("grant", "retry"), ("grant", "done")], log
    assert log[0][3].startswith("503"), log
    assert statuses(stack.delivery_log(briefly)) == [("grant", "done")]
