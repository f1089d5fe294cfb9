"""Routes the existing plugins call (issue 11), through the real handlers; each test is named
after the client behaviour it protects and parses our answer with that client's field types
(tests/integration/operator/client_shapes.py)."""

from __future__ import annotations

import json
from typing import Any

from functions.operator import (
    create_checkout_link,
    create_coupon,
    delete_coupon_by_code,
    get_coupon,
    get_information,
    get_listing,
    get_payments,
)
from functions.storefront import get_basket
from tests.integration.operator import client_shapes
from tests.integration.operator.support import manual_payment, secret_headers
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke

FORM = {"content-type": "application/x-www-form-urlencoded"}


def test_buycraftx_secret_header_is_accepted(demo: DemoStore, invoke: Invoke) -> None:
    headers = {"X-Buycraft-Secret": demo.server_secret, "Accept": "application/json"}
    response = invoke(get_information.handler, "GET", "/information", headers=headers)
    assert response.status == 200 and response.json()["account"]["id"] == 1
    wrong = invoke(get_information.handler, "GET", "/information", headers={"X-Buycraft-Secret": "nope"})
    assert wrong.status == 403 and wrong.headers["content-type"] == "application/json"
    missing = invoke(get_information.handler, "GET", "/information")
    assert "X-Buycraft-Secret" in missing.json()["error_message"]


def test_official_plugin_buy_menu_parses_the_listing(demo: DemoStore, invoke: Invoke) -> None:
    response = invoke(get_listing.handler, "GET", "/listing", headers=secret_headers(demo.server_secret))
    assert response.status == 200, response.body
    listing = client_shapes.McListing.model_validate(response.json())
    by_name = {c.name: c for c in listing.categories}
    # Top categories only; the dynamic one (no fixed packages) is left out; Crates is under Items.
    assert list(by_name) == ["Ranks", "Items"]
    items = by_name["Items"]
    assert [p.id for p in items.packages] == [10, 11, 12, 13]
    assert [s.name for s in items.subcategories] == ["Crates"]
    sword = items.packages[0]
    assert sword.image == "https://example.invalid/sword.png" and sword.price == 2.5
    assert items.packages[1].image is False  # no image: false, as the platform sends, never null
    key = items.subcategories[0].packages[0]
    assert key.id == 20 and key.sale.active is True and key.sale.discount == 0.2  # 10% crate week
    assert by_name["Ranks"].only_subcategories is False


def test_listing_hides_disabled_packages(demo: DemoStore, invoke: Invoke) -> None:
    from functions.operator import update_package

    h = secret_headers(demo.server_secret)
    disabled = invoke(update_package.handler, "PUT", "/package/11", headers=h, body={"disabled": True})
    assert disabled.status == 200
    listing = invoke(get_listing.handler, "GET", "/listing", headers=h).json()
    items = next(c for c in listing["categories"] if c["name"] == "Items")
    assert [p["id"] for p in items["packages"]] == [10, 12, 13]


def _basket_of(invoke: Invoke, demo: DemoStore, url: str) -> dict[str, Any]:
    ident = url.rsplit("/", 1)[1]
    path = f"/api/accounts/{demo.token}/baskets/{ident}"
    response = invoke(get_basket.handler, "GET", path)
    assert response.status == 200, response.body
    return dict(response.json()["data"])


def test_official_plugin_checkout_command_gets_an_authenticated_basket(
    demo: DemoStore, invoke: Invoke
) -> None:
    # MC sends pretty-printed JSON and expects exactly 201 with {url, expires}.
    raw = json.dumps({"package_id": 10, "username": "Notch"}, indent=2)
    headers = {**secret_headers(demo.server_secret), "content-type": "application/json; charset=utf-8"}
    response = invoke(create_checkout_link.handler, "POST", "/checkout", raw_body=raw, headers=headers)
    assert response.status == 201, response.body
    link = client_shapes.McCheckoutUrl.model_validate(response.json())
    assert "/checkout/" in link.url
    basket = _basket_of(invoke, demo, link.url)
    assert basket["username"] == "Notch" and basket["username_id"]
    assert [(p["id"], p["in_basket"]["quantity"]) for p in basket["packages"]] == [(10, 1)]


def test_buycraftx_form_checkout_link_works(demo: DemoStore, invoke: Invoke) -> None:
    headers = {"X-Buycraft-Secret": demo.server_secret, **FORM}
    form = "username=Alex&package_id=20"
    response = invoke(create_checkout_link.handler, "POST", "/checkout", raw_body=form, headers=headers)
    assert response.status == 201, response.body
    basket = _basket_of(invoke, demo, response.json()["url"])
    assert basket["username"] == "Alex" and [p["id"] for p in basket["packages"]] == [20]
    form = "username=Alex&category_id=2"
    category = invoke(create_checkout_link.handler, "POST", "/checkout", raw_body=form, headers=headers)
    assert category.status == 201 and category.json()["url"] == "http://127.0.0.1:8083/category/2"


def test_checkout_link_refuses_bad_input_naming_the_field(demo: DemoStore, invoke: Invoke) -> None:
    h = secret_headers(demo.server_secret)
    for body, field, status in (
        ({"username": "Notch"}, "package_id", 422),
        ({"username": "no spaces", "package_id": 10}, "username", 422),
        ({"username": "Notch", "package_id": "ten"}, "package_id", 422),
        ({"username": "Notch", "package_id": 999}, "not found", 404),
        ({"username": "Notch", "category_id": 999}, "not found", 404),
    ):
        response = invoke(create_checkout_link.handler, "POST", "/checkout", body=body, headers=h)
        assert response.status == status, (body, response.body)
        assert field in response.json()["error_message"].lower()
    as_json = {**h, "content-type": "application/json"}
    garbled = invoke(create_checkout_link.handler, "POST", "/checkout", raw_body="{not json", headers=as_json)
    assert garbled.status == 422


def test_csharp_sdk_paged_payments_reads_page_n(demo: DemoStore, invoke: Invoke) -> None:
    for _ in range(27):
        manual_payment(invoke, demo.server_secret)
    h = secret_headers(demo.server_secret)
    # GetAllPaymentsPaginated(2) sends /payments?paged=2: page 2.
    second = invoke(get_payments.handler, "GET", "/payments", headers=h, query={"paged": "2"})
    assert second.status == 200, second.body
    page = client_shapes.CsPaginatedPayments.model_validate(second.json())
    assert page.current_page == 2 and len(page.data) == 2
    first = invoke(get_payments.handler, "GET", "/payments", headers=h, query={"paged": "1"}).json()
    assert first["current_page"] == 1 and len(first["data"]) == 25
    explicit = invoke(get_payments.handler, "GET", "/payments", headers=h, query={"paged": "1", "page": "2"})
    assert explicit.json()["current_page"] == 2


def test_buycraftx_coupon_delete_by_code(demo: DemoStore, invoke: Invoke) -> None:
    h = {"X-Buycraft-Secret": demo.server_secret}
    body = {"code": "123", "effective_on": "cart", "discount_type": "value", "discount_amount": 1}
    assert invoke(create_coupon.handler, "POST", "/coupons", headers=h, body=body).status == 200
    # A code of digits is a code on this route (coupon 1 is WELCOME10 and stays).
    deleted = invoke(delete_coupon_by_code.handler, "DELETE", "/coupons/123/code", headers=h)
    assert deleted.status == 204 and deleted.body == ""
    assert invoke(get_coupon.handler, "GET", "/coupons/123", headers=h).status == 404
    assert invoke(get_coupon.handler, "GET", "/coupons/1", headers=h).status == 200
    again = invoke(delete_coupon_by_code.handler, "DELETE", "/coupons/123/code", headers=h)
    assert again.status == 404 and again.headers["content-type"] == "application/json"
    assert invoke(delete_coupon_by_code.handler, "DELETE", "/coupons/welcome10/code", headers=h).status == 204
