"""The shop's log-in in a Steam store (issue 27): "Sign in through Steam" instead of a username,
through the hosted Steam sign-in (the loopback OpenID stand-in) and back to where the player was
going, with the basket the player's; through the real handlers under moto."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from functions.shop import get_home, get_login, get_login_steam, post_login_steam
from functions.storefront import get_steam_sign_in
from tests.integration.storefront.test_steam_sign_in import NOW, STEAM_ID
from tests.support.clock import Clock
from tests.support.demo import DemoStore
from tests.support.invocation import invoke
from tests.support.shop import ShopClient
from tests.support.steam_openid import StandInSteam, running_steam
from webstore import keys
from webstore import services as services_module
from webstore.repo.baskets import BasketRepository
from webstore.services import get_services


@pytest.fixture
def steam_shop(monkeypatch: pytest.MonkeyPatch, demo: DemoStore) -> Iterator[StandInSteam]:
    """The demo store as a Rust store, Steam's OpenID endpoint the stand-in, a controlled clock."""
    with running_steam() as stand_in:
        monkeypatch.setenv("WEBSTORE_STEAM_OPENID_URL", stand_in.login_url)
        services_module.reset()
        demo.table.update(
            keys.key(keys.store_pk(1), keys.STORE_ITEM),
            "SET platform_type_id = :p, game_type = :g",
            values={":p": "rust", ":g": "Rust"},
        )
        get_services().clock = Clock(NOW)
        yield stand_in
    services_module.reset()


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def test_the_log_in_page_offers_steam_and_the_player_comes_back_signed_in(
    steam_shop: StandInSteam, demo: DemoStore
) -> None:
    player = ShopClient()
    page = player.get(get_login.handler, "/login?next=/basket")
    assert page.status == 200, page.body
    assert 'action="/login/steam"' in page.body and "Sign in through Steam" in page.body
    assert 'name="username"' not in page.body

    # The form: a basket for the visitor, then the hosted Steam sign-in with the way back.
    start = player.post(post_login_steam.handler, "/login/steam", {"next": "/basket"})
    assert start.status == 303, start.body
    ident = player.cookies["shop_basket"]
    settings = get_services().settings
    hosted = urlsplit(start.headers["location"])
    assert (
        f"{hosted.scheme}://{hosted.netloc}{hosted.path}" == f"{settings.storefront_url}/auth/{ident}/steam"
    )
    back = query_of(start.headers["location"])["returnUrl"]
    assert back == f"{settings.shop_url.rstrip('/')}/login/steam?next=%2Fbasket"

    # The hosted sign-in sends the player to Steam, and Steam's assertion back to it.
    to_steam = invoke(get_steam_sign_in.handler, "GET", f"/auth/{ident}/steam", query={"returnUrl": back})
    assert to_steam.status == 303 and to_steam.headers["location"].startswith(steam_shop.login_url)
    return_to = query_of(to_steam.headers["location"])["openid.return_to"]
    assertion = steam_shop.assertion(STEAM_ID, return_to, NOW)
    signed = invoke(
        get_steam_sign_in.handler, "GET", f"/auth/{ident}/steam", query={"returnUrl": back, **assertion}
    )
    assert signed.status == 303, signed.body
    assert signed.headers["location"] == back + "&success=true"

    # Back in the shop: on to the basket, the player's.
    done = player.get(get_login_steam.handler, "/login/steam?next=/basket&success=true")
    assert done.status == 303 and done.headers["location"] == "/basket"
    basket = BasketRepository(demo.table).get(ident)
    assert basket.username == STEAM_ID and basket.username_id is not None
    assert player.cookies["shop_player"] == str(basket.username_id)


def test_coming_back_without_a_sign_in_says_so(steam_shop: StandInSteam) -> None:
    player = ShopClient()
    player.get(get_home.handler, "/")
    answer = player.get(get_login_steam.handler, "/login/steam?next=/basket&success=true")
    assert answer.status == 422 and "The Steam sign-in did not finish" in answer.body
    assert 'action="/login/steam"' in answer.body


def test_the_steam_form_is_csrf_checked(steam_shop: StandInSteam) -> None:
    player = ShopClient()
    player.get(get_login.handler, "/login")
    answer = player.post(post_login_steam.handler, "/login/steam", {"next": "/"}, csrf="forged")
    assert answer.status == 403
    assert "shop_basket" not in player.cookies


def test_a_minecraft_store_logs_in_by_name(demo: DemoStore) -> None:
    page = ShopClient().get(get_login.handler, "/login")
    assert 'name="username"' in page.body and "/login/steam" not in page.body
