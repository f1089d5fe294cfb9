"""A player links Discord from the receipt (functions/storefront/discord_link.py, both legs)
through Discord's OAuth2 pages, the stand-in's: state and PKCE checked, the state good once, the
account linked and the roles granted (the player added to the server with them, `guilds.join`)."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from functions.storefront import create_basket, discord_link, get_checkout_receipt
from tests.integration.storefront.test_pay_prices_now import basket_with
from tests.integration.subscriptions.support import pay_form
from tests.integration.subscriptions.test_endings import steve_id
from tests.support.demo import DemoStore
from tests.support.discord_standin import StandInDiscord
from tests.support.invocation import Invoke
from webstore import services as services_module
from webstore.discord.linking import challenge_of
from webstore.domain.discord import RoleRule
from webstore.repo.audit_log import Audit
from webstore.repo.discord import DiscordRepository
from webstore.services import get_services

from .conftest import GUILD, STEVE_DISCORD, SUPPORTER, VIP_ROLE
from .test_consumer import START, connect


@pytest.fixture
def standin(aws: None, discord: StandInDiscord, monkeypatch: pytest.MonkeyPatch) -> Iterator[StandInDiscord]:
    monkeypatch.setenv("WEBSTORE_DISCORD_API_URL", discord.base_url)
    monkeypatch.setenv("WEBSTORE_DISCORD_AUTHORIZE_URL", discord.authorize_url)
    services_module.reset()
    yield discord
    services_module.reset()


def paid_basket(invoke: Invoke, demo: DemoStore) -> str:
    ident = basket_with(invoke, demo, {"package_id": 1})
    assert pay_form(invoke, ident).status == 303
    return ident


def test_link_from_the_receipt_grants_the_roles_and_the_state_is_good_once(
    demo: DemoStore, invoke: Invoke, standin: StandInDiscord
) -> None:
    connect(standin)
    audit = Audit("o", "discord.rule", "t", START)
    DiscordRepository(demo.table).save_rule(1, RoleRule(1, GUILD, frozenset({VIP_ROLE, SUPPORTER})), audit)
    ident = paid_basket(invoke, demo)
    receipt = invoke(get_checkout_receipt.handler, "GET", f"/checkout/{ident}/receipt")
    assert receipt.status == 200 and "Link Discord" in receipt.body
    assert f"/discord/link?basket={ident}" in receipt.body

    started = invoke(discord_link.handler, "GET", "/discord/link", query={"basket": ident})
    assert started.status == 303, started.body
    to_discord = urlsplit(started.headers["location"])
    asked = {k: v[0] for k, v in parse_qs(to_discord.query).items()}
    assert started.headers["location"].startswith(standin.authorize_url)
    assert asked["code_challenge_method"] == "S256" and asked["scope"] == "identify guilds.join"
    assert asked["redirect_uri"].endswith("/discord/link")

    standin.signed_in = STEVE_DISCORD
    consent = httpx.get(started.headers["location"])
    assert consent.status_code == 200 and "steve" in consent.text
    approve = consent.text.split('href="')[1].split('"')[0].replace("&amp;", "&")
    back = httpx.get(f"http://127.0.0.1:{standin.port}{approve}")
    returned = {k: v[0] for k, v in parse_qs(urlsplit(back.headers["location"]).query).items()}
    assert returned["state"] == asked["state"]

    done = invoke(discord_link.handler, "GET", "/discord/link", query=returned)
    assert done.status == 200, done.body
    assert "Linked to Discord as steve. 2 role(s) granted." in done.body
    assert standin.roles_of(GUILD, STEVE_DISCORD) == {VIP_ROLE, SUPPORTER}  # added with them
    link = DiscordRepository(demo.table).link(1, steve_id())
    assert link is not None and link.discord_user_id == STEVE_DISCORD and link.access_token_sealed
    assert DiscordRepository(demo.table).player_of(1, STEVE_DISCORD) == steve_id()

    replayed = invoke(discord_link.handler, "GET", "/discord/link", query=returned)
    assert replayed.status == 422 and "expired or was used" in replayed.body


def test_a_forged_state_or_a_declined_consent_links_nothing(
    demo: DemoStore, invoke: Invoke, standin: StandInDiscord
) -> None:
    connect(standin)
    ident = paid_basket(invoke, demo)
    forged = invoke(
        discord_link.handler, "GET", "/discord/link", query={"code": "x", "state": "1-" + "0" * 32}
    )
    assert forged.status == 422
    started = invoke(discord_link.handler, "GET", "/discord/link", query={"basket": ident})
    state = parse_qs(urlsplit(started.headers["location"]).query)["state"][0]
    declined = invoke(
        discord_link.handler,
        "GET",
        "/discord/link",
        query={"state": state, "error": "access_denied"},
    )
    assert declined.status == 200 and "you declined" in declined.body
    assert DiscordRepository(demo.table).link(1, steve_id()) is None
    assert standin.calls == []


def test_no_link_without_a_connected_store_or_a_logged_in_player(
    demo: DemoStore, invoke: Invoke, standin: StandInDiscord
) -> None:
    ident = paid_basket(invoke, demo)
    receipt = invoke(get_checkout_receipt.handler, "GET", f"/checkout/{ident}/receipt")
    assert receipt.status == 200 and "Link Discord" not in receipt.body
    assert invoke(discord_link.handler, "GET", "/discord/link", query={"basket": ident}).status == 404
    connect(standin)
    created = invoke(create_basket.handler, "POST", f"/api/accounts/{demo.token}/baskets", body={})
    anonymous = created.json()["data"]["ident"]
    refused = invoke(discord_link.handler, "GET", "/discord/link", query={"basket": anonymous})
    assert refused.status == 422 and "Log in with your username" in refused.body
    assert challenge_of("a" * 43) != challenge_of("b" * 43)
    assert get_services().settings.discord_authorize_url == standin.authorize_url
