"""The language switcher (docs/shop.md, "Languages"): on every page of the shop, links to
`GET /language?lang=…&next=<the page>` that remember the language in a cookie and come back;
the pick beats the browser's Accept-Language and the store's language; `next` never leaves
the shop."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from functions import unmatched
from functions.shop import (
    get_basket,
    get_category,
    get_home,
    get_language,
    get_login,
    get_package,
    get_page,
    post_basket_coupon,
    post_basket_package,
)
from tests.support.shop import ShopClient

SWITCHER = re.compile(r'<nav aria-label="[^"]*" class="languages" id="languages">(.*?)</nav>', re.S)


def links(page: str) -> dict[str, str]:
    """The switcher's links of a page: language code -> its address."""
    found = SWITCHER.search(page)
    assert found, "the page has no language switcher"
    pairs = re.findall(r'<a href="([^"]+)" lang="([^"]+)"', found.group(1))
    return {code: html.unescape(url) for url, code in pairs}


def back_to(url: str) -> str:
    parts = urlsplit(url)
    assert parts.path == "/language"
    return unquote(parse_qs(parts.query)["next"][0])


@pytest.mark.parametrize(
    ("handler", "path"),
    [
        (get_home.handler, "/"),
        (get_category.handler, "/category/items"),
        (get_package.handler, "/package/11"),
        (get_page.handler, "/page/rules"),
        (get_login.handler, "/login?next=/basket"),
        (get_basket.handler, "/basket"),
        (get_category.handler, "/category/nope"),
        (unmatched.shop_handler, "/no/such/place"),
    ],
)
def test_every_page_has_the_switcher_back_to_itself(player: ShopClient, handler: object, path: str) -> None:
    page = player.get(handler, path)
    found = links(page.body)
    assert set(found) == {"en", "de", "fr", "es", "pt-BR"}
    assert all(back_to(url) == path for url in found.values())
    assert 'lang="en" hreflang="en" aria-current="true">English<' in page.body
    assert ">Deutsch<" in page.body and ">Português (Brasil)<" in page.body


def test_picking_a_language_is_remembered_and_beats_the_browsers(player: ShopClient) -> None:
    page = player.get(get_category.handler, "/category/items")
    switch = player.get(get_language.handler, links(page.body)["de"])
    assert switch.status == 303 and switch.headers["location"] == "/category/items"
    assert player.cookies["shop_lang"] == "de"
    assert any("shop_lang=de" in c and "HttpOnly" in c and "SameSite=lax" in c for c in switch.cookies)
    german = player.get(get_category.handler, "/category/items").body
    assert '<html lang="de">' in german and ">Anmelden</a>" in german
    assert 'lang="de" hreflang="de" aria-current="true">Deutsch<' in german
    # The pick beats the browser's language (the shop's own Accept-Language test has none of it).
    from tests.support.invocation import invoke

    cookie = {"cookie": f"shop_lang=fr; shop_csrf={player.csrf}"}
    french = invoke(get_home.handler, "GET", "/", headers={**cookie, "accept-language": "de-DE"}).body
    assert '<html lang="fr">' in french and ">Se connecter</a>" in french
    back = player.get(get_language.handler, "/language?lang=en&next=/")
    assert back.status == 303 and player.cookies["shop_lang"] == "en"
    assert '<html lang="en">' in player.get(get_home.handler, "/").body


def test_brazilian_portuguese_by_its_tag(player: ShopClient) -> None:
    switch = player.get(get_language.handler, "/language?lang=pt-BR&next=/basket")
    assert switch.headers["location"] == "/basket"
    assert '<html lang="pt-BR">' in player.get(get_basket.handler, "/basket").body


@pytest.mark.parametrize(
    "target",
    ["//evil.example/", "https://evil.example/", "/\\evil.example", "evil.example", "/%0d%0aSet:x", ""],
)
def test_the_way_back_never_leaves_the_shop(player: ShopClient, target: str) -> None:
    response = player.get(get_language.handler, f"/language?lang=de&next={target}")
    assert response.status == 303
    assert response.headers["location"] == "/"  # the home page instead
    assert player.cookies["shop_lang"] == "de"


def test_a_language_the_shop_does_not_have_is_refused(player: ShopClient) -> None:
    for value in ("ja", "", "de<script>", "x" * 200):
        response = player.get(get_language.handler, f"/language?lang={value}&next=/")
        assert response.status == 404 and "shop_lang" not in player.cookies
        assert "This shop does not speak that language" in response.body
        assert all(back_to(url) == "/" for url in links(response.body).values())


def test_a_forms_refusal_page_switches_back_to_the_forms_page(player: ShopClient) -> None:
    """A refused form answers its page at the form's address; the switcher goes back to the page."""
    player.get(get_login.handler, "/login")  # a page with a form: it sets the CSRF cookie
    refused = player.post(post_basket_coupon.handler, "/basket/coupons", {"code": "NOPE"})
    assert refused.status >= 400
    assert all(back_to(url) == "/basket" for url in links(refused.body).values())
    fields = {"package_id": "11", "quantity": "x"}
    missing = player.post(post_basket_package.handler, "/basket/packages", fields)
    assert missing.status == 422
    assert all(back_to(url) == "/package/11" for url in links(missing.body).values())
