"""Bad input answers 4xx naming the field, never 500, through the real handlers (issue 10.8,
10.10, 10.11): Unicode digits in id path parameters, `DELETE /queue` bodies nested deep or with
huge ids, empty keys and lone surrogates in caller maps, control characters in values that can
reach a game-server command."""

from __future__ import annotations

import pytest

from functions.operator import (
    create_payment,
    create_payment_note,
    delete_commands,
    delete_coupon,
    delete_coupon_by_code,
    get_coupon,
    get_gift_card,
    get_payment,
    get_payment_fields,
    get_player_packages,
    get_user,
    lookup_gift_card,
    top_up_gift_card,
    update_package,
    update_payment,
    void_gift_card,
)
from functions.operator import get_package as operator_get_package
from functions.storefront import (
    add_basket_package,
    create_basket,
    create_dynamic_packages,
    get_basket,
    get_category,
    get_package,
    update_basket_package_quantity,
    update_tier,
)
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response


def secret(demo: DemoStore) -> dict[str, str]:
    return {"X-Tebex-Secret": demo.server_secret}


def assert_operator_422(response: Response, field: str) -> None:
    assert response.status == 422, response.body
    assert response.json()["error_message"].startswith(f"Invalid request: {field}"), response.body


def assert_storefront_422(response: Response, field: str) -> None:
    assert response.status == 422, response.body
    assert [f["field"] for f in response.json()["field_details"]] == [field], response.body


def new_basket(demo: DemoStore, invoke: Invoke) -> str:
    response = invoke(create_basket.handler, "POST", f"/api/accounts/{demo.token}/baskets", body={})
    assert response.status == 200, response.body
    ident: str = response.json()["data"]["ident"]
    return ident


OPERATOR_PATHS = [
    (operator_get_package, "GET", "/package/{}", "package"),
    (update_package, "PUT", "/package/{}", "package"),
    (get_payment_fields, "GET", "/payments/fields/{}", "package"),
    (get_coupon, "GET", "/coupons/{}", "coupon_id"),
    (delete_coupon, "DELETE", "/coupons/{}", "coupon_id"),
    (get_payment, "GET", "/payments/{}", "transaction"),
    (update_payment, "PUT", "/payments/{}", "transaction"),
    (create_payment_note, "POST", "/payments/{}/note", "transaction"),
    (get_user, "GET", "/user/{}", "user"),
    # The plugin routes of the drop-in work (the CI fuzz found `DELETE /gift-cards/¹` → 500).
    (get_gift_card, "GET", "/gift-cards/{}", "gift_card_id"),
    (lookup_gift_card, "GET", "/gift-cards/lookup/{}", "code"),
    (top_up_gift_card, "PUT", "/gift-cards/{}", "gift_card_id"),
    (void_gift_card, "DELETE", "/gift-cards/{}", "gift_card_id"),
    (get_player_packages, "GET", "/player/{}/packages", "player"),
    (delete_coupon_by_code, "DELETE", "/coupons/{}/code", "code"),
]


@pytest.mark.parametrize("digit", ["¹", "①", "٣"])
def test_unicode_digits_in_operator_ids_are_a_422_naming_the_parameter(
    demo: DemoStore, invoke: Invoke, digit: str
) -> None:
    for module, method, path, field in OPERATOR_PATHS:
        body = {"disabled": False, "status": "complete", "note": "x"} if method in ("PUT", "POST") else None
        response = invoke(module.handler, method, path.format(digit), headers=secret(demo), body=body)
        assert_operator_422(response, field)


@pytest.mark.parametrize("digit", ["¹", "①"])
def test_unicode_digits_in_storefront_ids_are_a_422_naming_the_parameter(
    demo: DemoStore, invoke: Invoke, digit: str
) -> None:
    base = f"/api/accounts/{demo.token}"
    ident = new_basket(demo, invoke)
    cases = [
        (get_package.handler, "GET", f"{base}/packages/{digit}", None, "package"),
        (get_category.handler, "GET", f"{base}/categories/{digit}", None, "category"),
        (update_tier.handler, "PATCH", f"{base}/tiers/{digit}", {"package_id": 1}, "tier_id"),
        (
            update_basket_package_quantity.handler,
            "PUT",
            f"/api/baskets/{ident}/packages/{digit}",
            {"quantity": 1},
            "package_id",
        ),
    ]
    for handler, method, path, body, field in cases:
        response = invoke(handler, method, path, body=body, headers=demo.basic_auth())
        assert_storefront_422(response, field)


@pytest.mark.parametrize(
    "raw",
    ['{"ids":' + "[" * 1000 + "]" * 1000 + "}", '{"ids":[' + "9" * 5000 + "]}", "ids[]=" + "9" * 5000],
    ids=["nested-1000", "5000-digit-json", "5000-digit-form"],
)
def test_delete_queue_with_absurd_ids_is_a_422_naming_ids(demo: DemoStore, invoke: Invoke, raw: str) -> None:
    response = invoke(delete_commands.handler, "DELETE", "/queue", headers=secret(demo), raw_body=raw)
    assert response.status == 422, response.body
    assert "ids" in response.json()["error_message"]


@pytest.mark.parametrize(
    "custom_json", ['{"": 1}', '{"a": {"": 1}}', '{"a": "\\ud800"}'], ids=["empty", "nested", "surrogate"]
)
def test_bad_basket_custom_is_refused_and_the_store_keeps_working(
    demo: DemoStore, invoke: Invoke, custom_json: str
) -> None:
    base = f"/api/accounts/{demo.token}"
    response = invoke(
        create_basket.handler,
        "POST",
        f"{base}/baskets",
        raw_body='{"custom": ' + custom_json + "}",
        headers={"content-type": "application/json"},
    )
    assert_storefront_422(response, "custom")


@pytest.mark.parametrize(
    ("variable_data", "why"),
    [({"": "x"}, "empty key"), ({"name": "hi\nop Mallory"}, "newline"), ({"name": "a\x00b"}, "NUL")],
)
def test_bad_variable_data_is_refused_and_the_basket_stays_usable(
    demo: DemoStore, invoke: Invoke, variable_data: dict[str, str], why: str
) -> None:
    ident = new_basket(demo, invoke)
    response = invoke(
        add_basket_package.handler,
        "POST",
        f"/api/baskets/{ident}/packages",
        body={"package_id": 1, "quantity": 1, "variable_data": variable_data},
    )
    assert_storefront_422(response, "variable_data")
    later = invoke(get_basket.handler, "GET", f"/api/accounts/{demo.token}/baskets/{ident}")
    assert later.status == 200, later.body


@pytest.mark.parametrize(
    "options", [{"": "x"}, {"name": "hi\nop Mallory"}, {"name": "\x85"}, {"name": "\ud800"}]
)
def test_manual_payment_options_that_could_break_a_command_are_refused(
    demo: DemoStore, invoke: Invoke, options: dict[str, str]
) -> None:
    response = invoke(
        create_payment.handler,
        "POST",
        "/payments",
        headers=secret(demo),
        body={"ign": "Steve", "packages": [{"id": 1, "options": options}], "price": 1},
    )
    assert response.status == 422, response.body
    assert "options" in response.json()["error_message"]


def test_dynamic_package_custom_with_a_surrogate_is_refused(demo: DemoStore, invoke: Invoke) -> None:
    ident = new_basket(demo, invoke)
    raw = (
        '{"basket_id": "' + ident + '", "username": "Steve", "category_id": 4, "packages": [{"name": "X",'
        ' "price": 1, "slug": "x", "custom": {"k": "\\udc00"}}]}'
    )
    response = invoke(
        create_dynamic_packages.handler,
        "PUT",
        f"/api/accounts/{demo.token}/baskets/{ident}/dynamic-packages",
        raw_body=raw,
        headers={**demo.basic_auth(), "content-type": "application/json"},
    )
    assert response.status == 422, response.body
    assert response.json()["field_details"][0]["field"].startswith("packages.0.custom")
