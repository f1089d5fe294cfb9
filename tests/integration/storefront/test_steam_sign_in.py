"""Sign-in through Steam on the hosted auth page, through the Lambda handlers (moto + the
stand-in Steam OpenID endpoint on 127.0.0.1): a verified assertion binds the basket to the
Steam64 id; a forged, mismatched or replayed one is refused with nothing written."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import pytest

from functions.operator import get_due_players
from functions.storefront import get_auth_page, get_steam_sign_in, post_auth_page
from tests.integration.operator.support import manual_payment, secret_headers
from tests.integration.storefront.support import ACCOUNT
from tests.support.clock import Clock
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from tests.support.steam_openid import StandInSteam, running_steam
from webstore import keys
from webstore import services as services_module
from webstore.basket import Basket
from webstore.repo.baskets import BasketRepository
from webstore.services import get_services

RETURN = "http://localhost:3000/basket"
STEAM_ID = "76561197960287930"
NOW = datetime(2026, 3, 15, 12, 0, 0, tzinfo=UTC)


@pytest.fixture
def steam(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandInSteam]:
    with running_steam() as stand_in:
        monkeypatch.setenv("WEBSTORE_STEAM_OPENID_URL", stand_in.login_url)
        monkeypatch.setenv("WEBSTORE_IDENTITY_TIMEOUT_SECONDS", "0.5")
        services_module.reset()
        yield stand_in
    services_module.reset()


@pytest.fixture
def steam_store(steam: StandInSteam, demo: DemoStore) -> StandInSteam:
    """The demo store as a Rust store, on a controlled clock."""
    demo.table.update(
        keys.key(keys.store_pk(ACCOUNT), keys.STORE_ITEM),
        "SET platform_type_id = :p, game_type = :g",
        values={":p": "rust", ":g": "Rust"},
    )
    get_services().clock = Clock(NOW)
    return steam


def callback(ident: str) -> str:
    return f"https://shop.test/auth/{ident}/steam?returnUrl={quote(RETURN, safe='')}"


def come_back(invoke: Invoke, ident: str, params: dict[str, str]) -> Response:
    return invoke(
        get_steam_sign_in.handler, "GET", f"/auth/{ident}/steam", query={"returnUrl": RETURN, **params}
    )


def stored(demo: DemoStore, ident: str) -> Basket:
    return BasketRepository(demo.table).get(ident)


def nonces(demo: DemoStore) -> list[dict[str, Any]]:
    items = demo.table.client.scan(TableName=demo.table.name)["Items"]
    return [i for i in items if i["PK"]["S"].startswith("STEAMNONCE#")]


def test_auth_page_of_a_steam_store_offers_steam_and_sends_the_player_there(
    steam_store: StandInSteam, invoke: Invoke, make_basket: Callable[..., Basket]
) -> None:
    ident = make_basket().ident
    page = invoke(get_auth_page.handler, "GET", f"/auth/{ident}", query={"returnUrl": RETURN})
    assert page.status == 200
    assert "Sign in through Steam" in page.body
    assert 'name="username"' not in page.body

    start = invoke(get_steam_sign_in.handler, "GET", f"/auth/{ident}/steam", query={"returnUrl": RETURN})
    assert start.status == 303
    target = urlsplit(start.headers["location"])
    assert f"{target.scheme}://{target.netloc}{target.path}" == steam_store.login_url
    query = {k: v[0] for k, v in parse_qs(target.query).items()}
    assert query["openid.mode"] == "checkid_setup"
    assert query["openid.return_to"] == callback(ident)
    assert query["openid.realm"] == "https://shop.test/"
    assert query["openid.claimed_id"] == "http://specs.openid.net/auth/2.0/identifier_select"


def test_a_verified_assertion_binds_the_basket_to_the_steam64_id(
    steam_store: StandInSteam, invoke: Invoke, demo: DemoStore, make_basket: Callable[..., Basket]
) -> None:
    ident = make_basket().ident
    response = come_back(invoke, ident, steam_store.assertion(STEAM_ID, callback(ident), NOW))
    assert response.status == 303, response.body
    assert response.headers["location"] == RETURN + "?success=true"
    basket = stored(demo, ident)
    assert basket.username == STEAM_ID
    assert basket.username_id is not None
    assert steam_store.checks[-1]["openid.mode"] == "check_authentication"
    # the same Steam account signing in to another basket is the same player
    other = make_basket().ident
    again = come_back(invoke, other, steam_store.assertion(STEAM_ID, callback(other), NOW, nonce="def"))
    assert again.status == 303
    assert stored(demo, other).username_id == basket.username_id


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"openid.claimed_id": "https://steamcommunity.com/openid/id/76561197960287931"}, "openid.sig"),
        ({"openid.sig": "forged"}, "openid.sig"),
        ({"openid.claimed_id": "https://evil.test/openid/id/76561197960287930"}, "openid.claimed_id"),
        ({"openid.op_endpoint": "https://evil.test/openid/login"}, "openid.op_endpoint"),
        ({"openid.return_to": "https://shop.test/auth/other/steam"}, "openid.return_to"),
        ({"openid.mode": "cancel"}, "openid.mode"),
    ],
)
def test_a_forged_or_mismatched_assertion_is_refused_with_nothing_written(
    steam_store: StandInSteam,
    invoke: Invoke,
    demo: DemoStore,
    make_basket: Callable[..., Basket],
    change: dict[str, str],
    field: str,
) -> None:
    ident = make_basket().ident
    params = {**steam_store.assertion(STEAM_ID, callback(ident), NOW), **change}
    if "openid.claimed_id" in change:
        params["openid.identity"] = change["openid.claimed_id"]
    response = come_back(invoke, ident, params)
    assert response.status == 422, response.body
    assert field in response.body
    assert stored(demo, ident).username_id is None
    assert nonces(demo) == []


def test_a_replayed_or_stale_assertion_is_refused(
    steam_store: StandInSteam, invoke: Invoke, demo: DemoStore, make_basket: Callable[..., Basket]
) -> None:
    ident = make_basket().ident
    params = steam_store.assertion(STEAM_ID, callback(ident), NOW)
    assert come_back(invoke, ident, params).status == 303
    replay = come_back(invoke, ident, params)
    assert replay.status == 409
    assert "already used" in replay.body

    stale = make_basket().ident
    old = steam_store.assertion(STEAM_ID, callback(stale), NOW - timedelta(hours=1), nonce="old")
    refused = come_back(invoke, stale, old)
    assert refused.status == 422
    assert "expired" in refused.body
    assert stored(demo, stale).username_id is None


def test_steam_down_is_503_and_nothing_written(
    steam_store: StandInSteam, invoke: Invoke, demo: DemoStore, make_basket: Callable[..., Basket]
) -> None:
    ident = make_basket().ident
    steam_store.down = True
    response = come_back(invoke, ident, steam_store.assertion(STEAM_ID, callback(ident), NOW))
    assert response.status == 503
    assert stored(demo, ident).username_id is None


def test_a_typed_name_is_refused_in_a_steam_store(
    steam_store: StandInSteam, invoke: Invoke, demo: DemoStore, make_basket: Callable[..., Basket]
) -> None:
    ident = make_basket().ident
    body = urlencode({"returnUrl": RETURN, "username": "Steve"})
    form = {"content-type": "application/x-www-form-urlencoded"}
    response = invoke(post_auth_page.handler, "POST", f"/auth/{ident}", raw_body=body, headers=form)
    assert response.status == 422
    assert "sign in through Steam" in response.body
    assert stored(demo, ident).username_id is None


def test_a_minecraft_store_has_no_steam_sign_in(
    steam: StandInSteam, demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket]
) -> None:
    ident = make_basket().ident
    response = invoke(get_steam_sign_in.handler, "GET", f"/auth/{ident}/steam", query={"returnUrl": RETURN})
    assert response.status == 422
    assert "Steam" in response.body


def test_a_steam_player_is_paid_for_and_queued_under_the_steam64_id(
    steam_store: StandInSteam, invoke: Invoke, demo: DemoStore, make_basket: Callable[..., Basket]
) -> None:
    ident = make_basket().ident
    assert come_back(invoke, ident, steam_store.assertion(STEAM_ID, callback(ident), NOW)).status == 303
    manual_payment(invoke, demo.server_secret, ign=STEAM_ID)
    response = invoke(get_due_players.handler, "GET", "/queue", headers=secret_headers(demo.server_secret))
    assert response.status == 200, response.body
    [player] = response.json()["players"]
    assert player["uuid"] == STEAM_ID
    assert player["name"] == STEAM_ID
    assert player["id"] == stored(demo, ident).username_id
