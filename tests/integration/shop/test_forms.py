"""Every shop form through its real handler: Post/Redirect/Get on success, the page again with
the reason on a refusal, CSRF refused on every form, the basket's totals equal to the hosted
checkout's, no open redirect."""

from __future__ import annotations

import re
from typing import Any

import pytest

from functions.shop import (
    get_basket,
    get_home,
    get_login,
    post_basket_coupon,
    post_basket_creator_code,
    post_basket_giftcard,
    post_basket_package,
    post_basket_quantity,
    post_basket_remove,
    post_checkout,
    post_login,
    post_logout,
)
from functions.storefront import get_checkout_page
from tests.support.invocation import invoke
from tests.support.shop import ShopClient
from webstore.repo.baskets import BasketRepository
from webstore.services import get_services

FORMS: list[tuple[Any, str, dict[str, str]]] = [
    (post_basket_package.handler, "/basket/packages", {"package_id": "10"}),
    (post_basket_quantity.handler, "/basket/quantity", {"package_id": "10", "quantity": "3"}),
    (post_basket_remove.handler, "/basket/remove", {"package_id": "10"}),
    (post_basket_coupon.handler, "/basket/coupons", {"code": "WELCOME10"}),
    (post_basket_giftcard.handler, "/basket/giftcards", {"code": "GIFT-0000-0000-0001"}),
    (post_basket_creator_code.handler, "/basket/creator-code", {"code": "STEVE"}),
    (post_login.handler, "/login", {"username": "Notch"}),
    (post_logout.handler, "/logout", {}),
    (post_checkout.handler, "/checkout", {}),
]


def basket_of(player: ShopClient) -> Any:
    return BasketRepository(get_services().table).get(player.cookies["shop_basket"])


def add(player: ShopClient, package_id: str = "10", **fields: str) -> None:
    answer = player.post(
        post_basket_package.handler, "/basket/packages", {"package_id": package_id, **fields}
    )
    assert answer.status == 303, answer.body
    assert answer.headers["location"] == fields.get("next", "/basket")


@pytest.fixture
def shopping(player: ShopClient) -> ShopClient:
    """A visitor who opened the shop (has its CSRF token) and put a sword in a basket."""
    player.get(get_login.handler, "/login")  # a page with a form: it sets the CSRF cookie
    add(player)
    return player


@pytest.mark.parametrize(("handler", "path", "fields"), FORMS, ids=[f[1] for f in FORMS])
def test_every_form_refuses_a_missing_or_wrong_csrf_token_and_changes_nothing(
    shopping: ShopClient, handler: Any, path: str, fields: dict[str, str]
) -> None:
    before = basket_of(shopping)
    for token in ("", "x" * 32):
        answer = shopping.post(handler, path, fields, csrf=token)
        assert answer.status == 403, (path, answer.body)
        assert "did not come from this shop" in answer.body and 'href="/">Back to Demo Craft' in answer.body
        assert "location" not in answer.headers
    assert basket_of(shopping).version == before.version
    stranger = ShopClient(cookies={"shop_basket": shopping.cookies["shop_basket"]})  # no token of its own
    assert stranger.post(handler, path, fields, csrf=shopping.csrf).status == 403


def test_adding_a_package_makes_a_basket_remembered_in_an_httponly_cookie(player: ShopClient) -> None:
    player.get(get_login.handler, "/login")
    answer = player.post(
        post_basket_package.handler,
        "/basket/packages",
        {"package_id": "13", "var_note": "for <b>me</b>", "quantity": "2"},
    )
    assert answer.status == 303 and answer.headers["location"] == "/basket"
    cookie = next(c for c in answer.cookies if c.startswith("shop_basket="))
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie
    page = player.get(get_basket.handler, "/basket").body
    assert "Shout-out" in page and "note: for &lt;b&gt;me&lt;/b&gt;" in page and 'value="2"' in page
    assert basket_of(player).lines[0].variable_data == {"note": "for <b>me</b>"}


def test_a_refused_add_shows_the_package_page_with_the_reason(shopping: ShopClient) -> None:
    answer = shopping.post(post_basket_package.handler, "/basket/packages", {"package_id": "11"})
    assert answer.status == 422 and "location" not in answer.headers
    assert 'id="form-error">variable_data.world is required by this package<' in answer.body
    assert "<h1>1,000 Coins</h1>" in answer.body


def test_quantity_remove_and_codes_change_the_basket_and_redirect(shopping: ShopClient) -> None:
    forms = [
        (post_basket_quantity.handler, "/basket/quantity", {"package_id": "10", "quantity": "3"}),
        (post_basket_coupon.handler, "/basket/coupons", {"code": "WELCOME10"}),
        (post_basket_creator_code.handler, "/basket/creator-code", {"code": "STEVE"}),
        (post_basket_giftcard.handler, "/basket/giftcards", {"code": "GIFT-0000-0000-0001"}),
    ]
    for handler, path, fields in forms:
        answer = shopping.post(handler, path, fields)
        assert answer.status == 303 and answer.headers["location"] == "/basket", (path, answer.body)
    basket = basket_of(shopping)
    assert basket.lines[0].quantity == 3 and [c.code for c in basket.coupons] == ["WELCOME10"]
    assert basket.creator_code == "STEVE" and basket.giftcards == ["GIFT-0000-0000-0001"]
    page = shopping.get(get_basket.handler, "/basket").body
    assert "Gift card ••••0001" in page and 'value="STEVE"' in page and "WELCOME10" in page

    for handler, path, fields in (
        (post_basket_coupon.handler, "/basket/coupons", {"code": "WELCOME10", "action": "remove"}),
        (
            post_basket_giftcard.handler,
            "/basket/giftcards",
            {"code": "GIFT-0000-0000-0001", "action": "remove"},
        ),
        (post_basket_creator_code.handler, "/basket/creator-code", {"action": "remove"}),
        (post_basket_remove.handler, "/basket/remove", {"package_id": "10"}),
    ):
        assert shopping.post(handler, path, fields).status == 303, path
    basket = basket_of(shopping)
    assert not basket.lines and not basket.coupons and not basket.giftcards and not basket.creator_code


def test_a_refused_code_shows_the_basket_with_the_reason(shopping: ShopClient) -> None:
    answer = shopping.post(post_basket_coupon.handler, "/basket/coupons", {"code": "NOPE"})
    assert 400 <= answer.status < 500 and "location" not in answer.headers
    assert 'id="form-error"' in answer.body and "<h1>Basket</h1>" in answer.body


def test_the_basket_totals_equal_the_hosted_checkouts_to_the_cent(shopping: ShopClient) -> None:
    add(shopping, "20", quantity="3")  # a crate key on sale (10% off)
    shopping.post(post_login.handler, "/login", {"username": "Notch"})  # the checkout asks for it
    shopping.post(post_basket_coupon.handler, "/basket/coupons", {"code": "WELCOME10"})
    page = shopping.get(get_basket.handler, "/basket").body
    shown = dict(re.findall(r'<dd id="total-(\w+)-\d+">([^<]+)</dd>', page))
    checkout = invoke(get_checkout_page.handler, "GET", f"/checkout/{shopping.cookies['shop_basket']}").body
    assert shown["subtotal"] == "$8.47 USD"  # 2.50 + 3 x 1.99, at list price
    for figure in ("subtotal", "total", "due"):
        assert shown[figure] in checkout, figure
    assert page.count("\u2212$") >= 2  # the sale's and the coupon's discount rows


def test_logging_in_by_username_makes_the_basket_the_players(shopping: ShopClient) -> None:
    answer = shopping.post(post_login.handler, "/login", {"username": "Notch", "next": "/category/ranks"})
    assert answer.status == 303 and answer.headers["location"] == "/category/ranks"
    basket = basket_of(shopping)
    assert basket.username == "Notch" and shopping.cookies["shop_player"] == str(basket.username_id)
    assert '<span class="who">Notch</span>' in shopping.get(get_home.handler, "/").body
    logout = shopping.post(post_logout.handler, "/logout", {})
    assert (
        logout.status == 303
        and "shop_basket" not in shopping.cookies
        and "shop_player" not in shopping.cookies
    )


def test_a_refused_name_is_the_login_page_with_the_reason(player: ShopClient) -> None:
    player.get(get_login.handler, "/login")
    answer = player.post(post_login.handler, "/login", {"username": "<script>x</script>"})
    assert 400 <= answer.status < 500 and 'id="form-error"' in answer.body
    assert "<script>x</script>" not in answer.body and "&lt;script&gt;x&lt;/script&gt;" in answer.body


def test_a_gift_is_a_line_for_the_other_player(shopping: ShopClient) -> None:
    shopping.post(post_login.handler, "/login", {"username": "Notch"})
    add(shopping, "11", var_world="creative", gift_to="Jeb_")
    page = shopping.get(get_basket.handler, "/basket").body
    assert "Gift for Jeb_" in page
    assert [line.gift_username for line in basket_of(shopping).lines] == [None, "Jeb_"]


def test_checkout_asks_a_guest_to_log_in_first(shopping: ShopClient) -> None:
    answer = shopping.post(post_checkout.handler, "/checkout", {})
    assert answer.status == 303 and answer.headers["location"] == "/login?next=/basket"
    login = shopping.get(get_login.handler, "/login?next=/basket")
    assert 'name="next" value="/basket"' in login.body


def test_checkout_goes_to_the_hosted_checkout_and_nowhere_else(shopping: ShopClient) -> None:
    shopping.post(post_login.handler, "/login", {"username": "Notch"})
    answer = shopping.post(post_checkout.handler, "/checkout", {"next": "https://evil.example"})
    assert answer.status == 303
    assert answer.headers["location"] == f"https://shop.test/checkout/{shopping.cookies['shop_basket']}"
    for hostile in ("//evil.example/x", "https://evil.example", "/\\evil.example", "javascript:alert(1)"):
        answer = shopping.post(post_basket_quantity.handler, "/basket/quantity",
                               {"package_id": "10", "quantity": "1", "next": hostile})  # fmt: skip
        assert answer.headers["location"] == "/basket", hostile


def test_checking_out_an_empty_basket_says_so(player: ShopClient) -> None:
    player.get(get_login.handler, "/login")
    answer = player.post(post_checkout.handler, "/checkout", {})
    assert answer.status == 422 and "Your basket is empty" in answer.body
