"""Which shop responses a CDN may share (docs/shop.md, "Caching at the edge"): the pages that
do not depend on the player, for a visitor with none of the shop's cookies, for a minute; every
page with a form, a basket or a player, and every error, never."""

from __future__ import annotations

import pytest

from functions.shop import get_basket, get_category, get_home, get_login, get_package, get_page, post_login
from tests.support.shop import ShopClient

SHARED = "public, max-age=0, s-maxage=60"


@pytest.mark.parametrize(
    ("handler", "path"),
    [(get_home.handler, "/"), (get_category.handler, "/category/items"), (get_page.handler, "/page/rules")],
)
def test_a_page_that_does_not_depend_on_the_player_is_shared_for_a_minute(
    player: ShopClient, handler: object, path: str
) -> None:
    page = player.get(handler, path)
    assert page.status == 200
    assert page.headers["cache-control"] == SHARED
    assert page.headers["vary"] == "Accept-Language, Cookie"
    # Nothing of the visitor in it: no cookie set, no token, no basket.
    assert page.cookies == [] and player.cookies == {}
    assert 'name="csrf"' not in page.body and "Basket (0)" in page.body
    # Its policy and framing rules are the private pages' own.
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize(
    ("handler", "path"),
    [(get_package.handler, "/package/10"), (get_login.handler, "/login"), (get_basket.handler, "/basket")],
)
def test_a_page_with_forms_or_the_basket_is_private_and_sets_the_token(
    player: ShopClient, handler: object, path: str
) -> None:
    page = player.get(handler, path)
    assert page.status == 200 and page.headers["cache-control"] == "no-store"
    assert player.csrf
    if path != "/basket":  # an empty basket has no form yet
        assert f'name="csrf" value="{player.csrf}"' in page.body


def test_a_visitor_with_the_shops_cookies_gets_private_pages(player: ShopClient) -> None:
    player.get(get_login.handler, "/login")
    assert player.post(post_login.handler, "/login", {"username": "Notch"}).status == 303
    assert {"shop_basket", "shop_player", "shop_csrf"} <= set(player.cookies)
    for handler, path in [(get_home.handler, "/"), (get_category.handler, "/category/ranks")]:
        page = player.get(handler, path)
        assert page.status == 200 and page.headers["cache-control"] == "no-store", path
        assert '<span class="who">Notch</span>' in page.body
    # The token alone (a visitor who opened a form) is enough: the page would carry it.
    only_token = ShopClient()
    only_token.get(get_login.handler, "/login")
    assert set(only_token.cookies) == {"shop_csrf"}
    assert only_token.get(get_home.handler, "/").headers["cache-control"] == "no-store"


def test_errors_are_never_shared(player: ShopClient) -> None:
    for handler, path in [(get_category.handler, "/category/nope"), (get_page.handler, "/page/nope")]:
        page = player.get(handler, path)
        assert page.status == 404 and page.headers["cache-control"] == "no-store", path


def test_the_basket_records_the_viewers_address_cloudfront_names() -> None:
    """Behind CloudFront the connection is the edge's: the basket takes the viewer's address
    from `CloudFront-Viewer-Address`, and the connection's when it is absent or malformed."""
    from starlette.requests import Request

    from functions.shop_deps import client_ip

    def request(header: str | None) -> Request:
        headers = [(b"cloudfront-viewer-address", header.encode())] if header is not None else []
        return Request({"type": "http", "headers": headers, "client": ("203.0.113.9", 443)})

    assert client_ip(request("198.51.100.7:46532")) == "198.51.100.7"
    assert client_ip(request("2001:db8::1:46532")) == "2001:db8::1"
    assert client_ip(request(None)) == "203.0.113.9"
    assert client_ip(request("not-an-address:1")) == "203.0.113.9"
