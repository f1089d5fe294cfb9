"""Discord roles on the local stack (issue 28, Must show): `webstore serve --discord-base-url`
pointed at the loopback stand-in (tests/support/discord_standin.py); the owner connects the bot
and VIP's role in the panel (over HTTP); the player logs in on the hosted auth page in Chromium
with "Also link my Discord account" ticked, goes through the stand-in's OAuth2 consent page and
back, buys VIP → the role granted once; `webstore clock run` through the renewal → no call to
Discord; a refund in the panel → the role removed."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser

from tests.e2e.conftest import ReturnSite, free_port, wait_for_port
from tests.support.discord_standin import StandInDiscord, running
from tests.support.local_stack import serving, webstore_tool
from tests.support.panel import http_sign_in

pytestmark = pytest.mark.e2e

GUILD, VIP_ROLE, BOT_ROLE = "900000000000000001", "910", "950"
STEVE_DISCORD = "700000000000000001"
VIP = 1  # the demo store's monthly VIP


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


def eventually(check: Callable[[], bool], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(f"not within {timeout:g} s: {what}")


def role_puts(discord: StandInDiscord) -> list[tuple[str, str]]:
    return [c for c in discord.changes() if c[1].endswith(f"/roles/{VIP_ROLE}")]


def test_link_in_chromium_buy_vip_renew_refund(
    stack: Stack, return_site: ReturnSite, browser: Browser
) -> None:
    discord = stack.discord
    panel, csrf = stack.panel()
    with panel:
        connected = panel.post(
            "/discord/app",
            data={
                "csrf": csrf,
                "client_id": discord.client_id,
                "client_secret": discord.client_secret,
                "bot_token": discord.bot_token,
                "public_key": "ab" * 32,
                "guilds_join": "1",
            },
        )
        assert connected.status_code == 303, connected.text
        rule = panel.post(
            "/discord/rules",
            data={
                "csrf": csrf,
                "package_id": str(VIP),
                "guild_id": GUILD,
                "role_ids": VIP_ROLE,
                "remove_on_end": "1",
            },
        )
        assert rule.status_code == 303, rule.text

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
