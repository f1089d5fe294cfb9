"""The shop's log-in on the hosted auth page (docs/shop.md, "Logging in on the hosted page"):
the owner chooses it in panel → Shop → Look ("Player log-in"); the shop's `/login` then sends
the player to the hosted page for their basket (made when they have none), with the way back to
where they were going, and the player lands back on the shop logged in. Through the shop's,
the panel's and the storefront's real handlers under moto."""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from functions.admin import get_shop_look, post_shop_look
from functions.shop import (
    get_category,
    get_home,
    get_login,
    get_package,
    post_basket_package,
    post_checkout,
    post_login,
)
from functions.storefront import get_auth_page, post_auth_page
from tests.integration.shop.test_look import revision
from tests.integration.shop.test_round_trips import Calls, calls
from tests.integration.shop.test_steam_login import steam_shop
from tests.integration.storefront.test_basket_auth import FORM
from tests.support.demo import DemoStore
from tests.support.invocation import invoke
from tests.support.lambda_events import Response
from tests.support.panel import PanelClient, signed_in
from tests.support.shop import ShopClient
from tests.support.steam_openid import StandInSteam
from webstore import keys
from webstore.admin.roles import Role
from webstore.repo.baskets import BasketRepository
from webstore.repo.shop_theme import ShopThemeRepository
from webstore.services import get_services

__all__ = ["calls", "steam_shop"]  # the fixtures, shared with the round-trip and Steam tests


@pytest.fixture
def owner(demo: DemoStore) -> PanelClient:
    del demo
    return signed_in(Role.OWNER)


def choose(owner: PanelClient, login: str) -> Response:
    fields = {"login": login, "revision": revision(owner)}
    return owner.post(post_shop_look.handler, "/shop/look", fields)


@pytest.fixture
def hosted(owner: PanelClient) -> PanelClient:
    """The demo store logs its players in on the hosted auth page."""
    assert choose(owner, "hosted").status == 303
    return owner


def shop_url() -> str:
    return get_services().settings.shop_url.rstrip("/")


def hosted_page(location: str) -> tuple[str, str]:
    """The hosted page's basket ident and return URL, checking it is the storefront's auth page."""
    parts = urlsplit(location)
    storefront = get_services().settings.storefront_url.rstrip("/")
    assert f"{parts.scheme}://{parts.netloc}" == storefront, location
    assert parts.path.startswith("/auth/"), location
    return parts.path.removeprefix("/auth/"), parse_qs(parts.query)["returnUrl"][0]


def log_in_on_hosted_page(ident: str, back: str, username: str = "Notch") -> str:
    """The hosted form, as the player's browser shows and posts it: where it sends them."""
    page = invoke(get_auth_page.handler, "GET", f"/auth/{ident}", query={"returnUrl": back})
    assert page.status == 200 and 'name="username"' in page.body, page.body
    body = urlencode({"returnUrl": back, "username": username})
    posted = invoke(post_auth_page.handler, "POST", f"/auth/{ident}", raw_body=body, headers=FORM)
    assert posted.status == 303, posted.body
    return str(posted.headers["location"])


def test_the_owner_chooses_the_hosted_page_and_a_reader_cannot(owner: PanelClient) -> None:
    form = owner.get(get_shop_look.handler, "/shop/look").body
    assert '<select id="login" name="login"' in form and '<option value="" selected>' in form
    assert choose(owner, "hosted").status == 303
    assert '<option value="hosted" selected>' in owner.get(get_shop_look.handler, "/shop/look").body
    assert ShopThemeRepository(get_services().table).live(1).look.login == "hosted"

    reader = signed_in(Role.READONLY)
    shown = reader.get(get_shop_look.handler, "/shop/look")
    assert shown.status == 200 and "<dt>Player log-in</dt><dd>hosted</dd>" in shown.body
    refused = reader.post(post_shop_look.handler, "/shop/look", {"login": "", "revision": revision(owner)})
    assert refused.status == 403
    assert ShopThemeRepository(get_services().table).live(1).look.login == "hosted"


def test_an_unknown_choice_is_refused_naming_the_setting(owner: PanelClient) -> None:
    before = ShopThemeRepository(get_services().table).live(1)
    refused = choose(owner, "discord")
    assert refused.status == 422 and 'id="form-error"' in refused.body
    assert "Player log-in: &#34;&#34; (the shop&#39;s own page) or &#34;hosted&#34;" in refused.body
    assert ShopThemeRepository(get_services().table).live(1) == before


def test_log_in_goes_to_the_hosted_page_and_back_to_the_shop_logged_in(hosted: PanelClient) -> None:
    del hosted
    player = ShopClient()
    home = player.get(get_home.handler, "/").body
    assert 'href="/login" rel="nofollow"' in home  # the header's "Log in": crawlers make no basket

    sent = player.get(get_login.handler, "/login?next=/category/ranks")
    assert sent.status == 303, sent.body
    ident, back = hosted_page(sent.headers["location"])
    assert player.cookies["shop_basket"] == ident  # a basket made for the visitor, remembered
    assert "shop_player" not in player.cookies
    assert back == f"{shop_url()}/login?next=%2Fcategory%2Franks"

    returned = log_in_on_hosted_page(ident, back)
    assert returned == f"{back}&success=true"

    landed = player.get(get_login.handler, returned.removeprefix(shop_url()))
    assert landed.status == 303 and landed.headers["location"] == "/category/ranks"
    basket = BasketRepository(get_services().table).of_store(1, ident)
    assert basket.username == "Notch" and player.cookies["shop_player"] == str(basket.username_id)
    page = player.get(get_category.handler, "/category/ranks")
    assert '<span class="who">Notch</span>' in page.body and "Log out" in page.body


def test_the_players_basket_goes_along_and_the_page_is_one_round_trip(
    hosted: PanelClient, calls: Calls
) -> None:
    del hosted
    newcomer = ShopClient()
    calls.own.clear()
    calls.beside.clear()
    assert newcomer.get(get_login.handler, "/login").status == 303
    # The page's one read, then the storefront's basket creation (its read, its write).
    assert (calls.own, calls.beside) == (["Query", "BatchGetItem", "PutItem"], ["GetItem"])

    player = ShopClient()
    player.get(get_package.handler, "/package/10")  # a page with a form: the CSRF cookie
    assert player.post(post_basket_package.handler, "/basket/packages", {"package_id": "10"}).status == 303
    ident = player.cookies["shop_basket"]

    calls.own.clear()
    calls.beside.clear()
    sent = player.get(get_login.handler, "/login?next=/basket")
    assert sent.status == 303 and hosted_page(sent.headers["location"])[0] == ident  # no new basket
    assert (calls.own, sorted(calls.beside)) == (["Query"], ["GetItem", "GetItem"])  # theme, basket

    log_in_on_hosted_page(ident, hosted_page(sent.headers["location"])[1], "Steve")
    calls.own.clear()
    calls.beside.clear()
    landed = player.get(get_login.handler, "/login?next=/basket&success=true")
    assert landed.status == 303 and landed.headers["location"] == "/basket"
    assert calls.own == ["Query"] and len(calls.beside) == 2  # still the one round trip
    basket = BasketRepository(get_services().table).of_store(1, ident)
    assert basket.username == "Steve" and [line.package_id for line in basket.lines] == [10]

    # A guest's checkout asks for the log-in: the same way, through /login.
    guest = ShopClient()
    guest.get(get_package.handler, "/package/10")
    guest.post(post_basket_package.handler, "/basket/packages", {"package_id": "10"})
    checkout = guest.post(post_checkout.handler, "/checkout", {})
    assert checkout.status == 303 and checkout.headers["location"] == "/login?next=/basket"
    onward = guest.get(get_login.handler, checkout.headers["location"])
    assert hosted_page(onward.headers["location"])[0] == guest.cookies["shop_basket"]


@pytest.mark.parametrize(
    "next_path",
    [
        "//evil.example/steal",
        "https://evil.example/",
        "/\\evil.example",
        "/login",
        "/login?next=/login",
        "/login/steam",
    ],
)
def test_the_way_back_is_a_path_of_the_shop_and_never_back_to_log_in(
    hosted: PanelClient, next_path: str
) -> None:
    del hosted
    player = ShopClient()
    sent = player.get(get_login.handler, f"/login?{urlencode({'next': next_path})}")
    assert sent.status == 303
    ident, back = hosted_page(sent.headers["location"])
    assert back == f"{shop_url()}/login?next=%2F"  # the home page, not the address asked for
    assert "evil" not in sent.headers["location"]
    returned = log_in_on_hosted_page(ident, back)
    assert player.get(get_login.handler, returned.removeprefix(shop_url())).headers["location"] == "/"


def test_a_forged_return_url_is_refused_by_the_hosted_page(hosted: PanelClient) -> None:
    del hosted
    player = ShopClient()
    ident, _ = hosted_page(player.get(get_login.handler, "/login").headers["location"])
    page = invoke(
        get_auth_page.handler, "GET", f"/auth/{ident}", query={"returnUrl": "https://evil.example/"}
    )
    assert page.status == 422 and 'name="username"' not in page.body


def test_a_paid_basket_gets_a_new_one_and_a_logged_in_player_goes_straight_on(
    owner: PanelClient, demo: DemoStore
) -> None:
    player = ShopClient()
    player.get(get_login.handler, "/login")  # the shop's own page still: the CSRF cookie
    assert player.post(post_login.handler, "/login", {"username": "Notch", "next": "/basket"}).status == 303
    first = player.cookies["shop_basket"]
    assert choose(owner, "hosted").status == 303

    straight = player.get(get_login.handler, "/login?next=/category/items")
    assert straight.status == 303 and straight.headers["location"] == "/category/items"

    demo.table.update(keys.basket_key(first), "SET complete = :t", values={":t": True})
    fresh = player.get(get_login.handler, "/login")
    ident, _ = hosted_page(fresh.headers["location"])
    assert ident != first and player.cookies["shop_basket"] == ident and "shop_player" not in player.cookies


def test_the_shops_own_page_is_the_default(demo: DemoStore) -> None:
    del demo
    page = ShopClient().get(get_login.handler, "/login?next=/basket")
    assert page.status == 200 and 'name="username"' in page.body and 'value="/basket"' in page.body


def test_a_steam_store_signs_in_through_steam_whatever_the_setting(
    steam_shop: StandInSteam, hosted: PanelClient
) -> None:
    del steam_shop, hosted
    page = ShopClient().get(get_login.handler, "/login?next=/basket")
    assert page.status == 200 and 'action="/login/steam"' in page.body and 'name="username"' not in page.body


def test_during_maintenance_the_pages_log_in_link_goes_to_the_hosted_page(owner: PanelClient) -> None:
    seen = revision(owner)
    fields = {"login": "hosted", "maintenance": "on", "maintenance_allow": "Notch", "revision": seen}
    assert owner.post(post_shop_look.handler, "/shop/look", fields).status == 303
    player = ShopClient()
    closed = player.get(get_home.handler, "/")
    assert closed.status == 503 and 'id="maintenance-login"' in closed.body and 'href="/login"' in closed.body

    sent = player.get(get_login.handler, "/login")
    assert sent.status == 303
    returned = log_in_on_hosted_page(*hosted_page(sent.headers["location"]))
    assert player.get(get_login.handler, returned.removeprefix(shop_url())).headers["location"] == "/"
    assert player.get(get_home.handler, "/").status == 200  # a listed player: the shop is open to them
