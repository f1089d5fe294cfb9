"""Steam persona names: the panel's Steam form stores a Steam Web API key (checked, sealed,
write-only), and with it the Steam sign-in names the player by the persona name Steam's Web API
(`ISteamUser/GetPlayerSummaries/v2`, the loopback stand-in) gives; without a key, or when the
Web API refuses it, the player is the Steam64 id, as before."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from functions.admin import get_store_settings, save_steam_api_key
from tests.integration.storefront.test_steam_sign_in import NOW, STEAM_ID, callback, come_back, stored
from tests.support.clock import Clock
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.panel import PanelClient, signed_in
from tests.support.steam_openid import StandInSteam, running_steam
from webstore import keys
from webstore import services as services_module
from webstore.admin.roles import Role
from webstore.basket import Basket
from webstore.repo.audit_log import AuditLog
from webstore.repo.store import StoreRepository
from webstore.sealing import open_sealed
from webstore.services import get_services

A = 1
PERSONA = "Garry «the» Builder"


@pytest.fixture
def steam(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandInSteam]:
    with running_steam() as stand_in:
        monkeypatch.setenv("WEBSTORE_STEAM_OPENID_URL", stand_in.login_url)
        monkeypatch.setenv("WEBSTORE_STEAM_WEB_API_URL", stand_in.web_api_url)
        monkeypatch.setenv("WEBSTORE_IDENTITY_TIMEOUT_SECONDS", "0.5")
        services_module.reset()
        stand_in.personas[STEAM_ID] = PERSONA
        yield stand_in
    services_module.reset()


@pytest.fixture
def rust_store(steam: StandInSteam, demo: DemoStore) -> StandInSteam:
    demo.table.update(
        keys.key(keys.store_pk(A), keys.STORE_ITEM),
        "SET platform_type_id = :p, game_type = :g",
        values={":p": "rust", ":g": "Rust"},
    )
    return steam


def save_key(owner: PanelClient, **fields: str) -> tuple[int, str, str]:
    answer = owner.post(save_steam_api_key.handler, "/settings/steam", fields)
    return answer.status, answer.headers.get("location", ""), answer.body


def sign_in(steam: StandInSteam, invoke: Invoke, ident: str, nonce: str = "abc") -> None:
    get_services().clock = Clock(NOW)
    response = come_back(invoke, ident, steam.assertion(STEAM_ID, callback(ident), NOW, nonce=nonce))
    assert response.status == 303, response.body


def test_the_key_is_set_sealed_never_shown_and_removed(rust_store: StandInSteam, demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    page = owner.get(get_store_settings.handler, "/settings")
    assert page.status == 200 and 'action="/settings/steam"' in page.body
    assert "A key is <strong>not set</strong>" in page.body

    # A key that is not one: the page again at 422, the typed text not written back.
    status, _, body = save_key(owner, steam_api_key="not-a-key-but-a-secret")
    assert status == 422 and "32 hexadecimal characters" in body
    assert "not-a-key-but-a-secret" not in body
    assert StoreRepository(demo.table).store(A).steam_api_key_sealed is None

    assert save_key(owner, steam_api_key=rust_store.api_key.lower())[:2] == (303, "/settings?done=Saved")
    sealed = StoreRepository(demo.table).store(A).steam_api_key_sealed
    assert sealed is not None and rust_store.api_key not in sealed
    assert open_sealed(get_services().secrets, sealed) == rust_store.api_key
    page = owner.get(get_store_settings.handler, "/settings")
    assert "A key is <strong>set</strong>" in page.body and rust_store.api_key not in page.body
    assert save_key(owner, steam_api_key="")[1] == "/settings?done=No+changes"  # blank: kept
    entry = AuditLog(demo.table).page(A).entries[0]
    assert (entry.action, entry.summary) == ("store.steam_api_key", "store settings: steam_api_key: set")

    assert save_key(owner, remove="1")[1] == "/settings?done=Saved"
    assert StoreRepository(demo.table).store(A).steam_api_key_sealed is None
    assert AuditLog(demo.table).page(A).entries[0].summary == "store settings: steam_api_key: removed"


def test_a_store_that_is_not_a_steam_store_has_no_steam_form(steam: StandInSteam, demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    assert 'action="/settings/steam"' not in owner.get(get_store_settings.handler, "/settings").body
    status, _, body = save_key(owner, steam_api_key=steam.api_key)
    assert status == 422 and "Steam game" in body


def test_with_a_key_the_player_is_named_by_the_persona_name(
    rust_store: StandInSteam, demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket]
) -> None:
    save_key(signed_in(Role.OWNER), steam_api_key=rust_store.api_key)
    ident = make_basket().ident
    sign_in(rust_store, invoke, ident)
    basket = stored(demo, ident)
    assert basket.username == PERSONA and basket.username_id is not None
    assert rust_store.summaries[-1] == {"key": rust_store.api_key, "steamids": STEAM_ID}

    # Renamed on Steam: the same player (bound by the Steam64 id), under the new name.
    rust_store.personas[STEAM_ID] = "Garry"
    sign_in(rust_store, invoke, ident, nonce="second")
    again = stored(demo, ident)
    assert (again.username, again.username_id) == ("Garry", basket.username_id)


def test_without_a_key_or_with_a_refused_one_the_name_is_the_steam64_id(
    rust_store: StandInSteam, demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket]
) -> None:
    ident = make_basket().ident
    sign_in(rust_store, invoke, ident)
    assert stored(demo, ident).username == STEAM_ID
    assert rust_store.summaries == []  # no key: Steam's Web API is not asked

    save_key(signed_in(Role.OWNER), steam_api_key="F" * 32)  # a key Steam refuses (403)
    other = make_basket().ident
    sign_in(rust_store, invoke, other, nonce="other")
    assert stored(demo, other).username == STEAM_ID
    assert rust_store.summaries[-1]["key"] == "F" * 32


def test_a_gift_to_a_steam_account_the_store_has_not_seen(
    rust_store: StandInSteam, demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket]
) -> None:
    """Item 1 of issue 27 for Steam stores: `target_username_id` a Steam64 id the store has never
    seen is that Steam account (registered as a sign-in would); in a Minecraft store it stays
    422 (test_headless_dropin)."""
    from functions.storefront import add_basket_package
    from tests.integration.operator.test_headless_dropin import new_basket

    ident = new_basket(invoke, demo).json()["data"]["ident"]
    body = {"package_id": 10, "target_username_id": STEAM_ID}
    added = invoke(add_basket_package.handler, "POST", f"/api/baskets/{ident}/packages", body=body)
    assert added.status == 200, added.body
    [line] = added.json()["data"]["packages"]
    assert line["in_basket"]["gift_username"] == STEAM_ID
    # That Steam account signing in later is the player the gift went to.
    mine = make_basket().ident
    sign_in(rust_store, invoke, mine)
    assert str(stored(demo, mine).username_id) == line["in_basket"]["gift_username_id"]
