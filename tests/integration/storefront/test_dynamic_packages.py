"""createDynamicPackage through its Lambda handler, and the packages it makes visible."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from functions.storefront import create_dynamic_packages, get_categories, get_package, get_packages
from tests.integration.storefront.support import base, basic
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from webstore.basket import Basket
from webstore.catalog import Category
from webstore.repo.baskets import BasketRepository
from webstore.repo.store import StoreRepository

DYNAMIC = 4


def offer(n: int = 2, prefix: str = "offer", **extra: Any) -> list[dict[str, Any]]:
    return [
        {
            "name": f"Offer {i}",
            "price": 1.5 + i,
            "slug": f"{prefix}-{i}",
            "description": "<p>made for you</p>",
            **extra,
        }
        for i in range(1, n + 1)
    ]


def put(
    invoke: Invoke,
    demo: DemoStore,
    basket: Basket,
    body: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    **fields: Any,
) -> Response:
    payload = body or {
        "basket_id": basket.ident,
        "username": basket.username,
        "category_id": DYNAMIC,
        "packages": offer(),
    }
    payload.update(fields)
    return invoke(
        create_dynamic_packages.handler,
        "PUT",
        f"{base(demo)}/baskets/{basket.ident}/dynamic-packages",
        body=payload,
        headers=demo.basic_auth() if headers is None else headers,
    )


@pytest.fixture
def player_basket(make_basket: Callable[..., Basket]) -> Basket:
    return make_basket(username="Steve", username_id=5)


def dynamic_category(invoke: Invoke, demo: DemoStore, basket: Basket | None) -> list[dict[str, Any]]:
    query = {"includePackages": "1"}
    if basket:
        query["basketIdent"] = basket.ident
    data = invoke(get_categories.handler, "GET", f"{base(demo)}/categories", query=query).json()["data"]
    # A category with no packages to show is left out of the listing (docs/compatibility.md).
    return [p for c in data if c["id"] == DYNAMIC for p in c["packages"]]


def test_packages_appear_only_with_that_basket(
    demo: DemoStore, invoke: Invoke, player_basket: Basket, make_basket: Callable[..., Basket]
) -> None:
    response = put(invoke, demo, player_basket)
    assert response.status == 200, response.body
    assert response.headers["content-type"] == "application/json"
    assert set(response.json()) == {"message"}

    shown = dynamic_category(invoke, demo, player_basket)
    assert [p["name"] for p in shown] == ["Offer 1", "Offer 2"]
    assert [p["total_price"] for p in shown] == [2.5, 3.5]
    ids = [p["id"] for p in shown]
    assert len(set(ids)) == 2
    assert [p["ident"] for p in shown] == [f"dyn_{DYNAMIC}_{i}" for i in ids]
    assert all(p["category"] == {"id": DYNAMIC, "name": "Custom offers"} for p in shown)

    assert dynamic_category(invoke, demo, None) == []
    assert dynamic_category(invoke, demo, make_basket()) == []

    listed = invoke(
        get_packages.handler, "GET", f"{base(demo)}/packages", query={"basketIdent": player_basket.ident}
    )
    assert {p["ident"] for p in listed.json()["data"]} >= {p["ident"] for p in shown}
    plain = invoke(get_packages.handler, "GET", f"{base(demo)}/packages").json()["data"]
    assert not any(p["ident"].startswith("dyn_") for p in plain)

    one = invoke(
        get_package.handler,
        "GET",
        f"{base(demo)}/packages/{shown[0]['ident']}",
        query={"basketIdent": player_basket.ident},
    )
    assert one.json()["data"]["name"] == "Offer 1"
    assert invoke(get_package.handler, "GET", f"{base(demo)}/packages/{shown[0]['ident']}").status == 404


def test_a_second_call_replaces_the_category_and_never_reuses_ids(
    demo: DemoStore, invoke: Invoke, player_basket: Basket
) -> None:
    assert put(invoke, demo, player_basket).status == 200
    first = {p["id"] for p in dynamic_category(invoke, demo, player_basket)}
    replaced = put(invoke, demo, player_basket, packages=[{"name": "Only", "price": 9, "slug": "only"}])
    assert replaced.status == 200
    second = dynamic_category(invoke, demo, player_basket)
    assert [p["name"] for p in second] == ["Only"]
    assert not first & {p["id"] for p in second}
    assert put(invoke, demo, player_basket, packages=[]).status == 200
    assert dynamic_category(invoke, demo, player_basket) == []


def test_custom_and_image_are_kept(demo: DemoStore, invoke: Invoke, player_basket: Basket) -> None:
    packages = [
        {
            "name": "Kit",
            "price": "3.25",
            "slug": "kit",
            "image_url": "https://cdn.test/kit.png",
            "custom": {"k": "v"},
        }
    ]
    assert put(invoke, demo, player_basket, packages=packages).status == 200
    [shown] = dynamic_category(invoke, demo, player_basket)
    assert shown["image"] == "https://cdn.test/kit.png"
    assert shown["creator_meta_data"] == {"k": "v"}
    assert shown["base_price"] == 3.25
    stored = BasketRepository(demo.table).get(player_basket.ident)
    assert stored.dynamic_packages[0].custom == {"k": "v"}


def test_missing_credentials_are_422_as_spec_says(
    demo: DemoStore, invoke: Invoke, player_basket: Basket
) -> None:
    response = put(invoke, demo, player_basket, headers={})
    assert response.status == 422
    assert "basic auth credentials are required" in response.json()["detail"].lower()
    garbled = put(invoke, demo, player_basket, headers={"authorization": "Basic !!!"})
    assert garbled.status == 422


@pytest.mark.parametrize("which", ["password", "username"])
def test_wrong_credentials_are_401(
    demo: DemoStore, invoke: Invoke, player_basket: Basket, which: str
) -> None:
    headers = basic(demo.token, "wrong") if which == "password" else basic("1-" + "0" * 32, demo.checkout_key)
    response = put(invoke, demo, player_basket, headers=headers)
    assert response.status == 401
    assert BasketRepository(demo.table).get(player_basket.ident).dynamic_packages == []


@pytest.mark.parametrize(
    ("fields", "field", "detail"),
    [
        ({"category_id": 2}, "category_id", "not dynamic"),
        ({"category_id": 99}, "category_id", "not found"),
        ({"basket_id": "1-" + "b" * 32}, "basket_id", "basket identifier"),
        ({"username": "Alex"}, "username", "not the player"),
        ({"packages": offer(51)}, "packages", ""),
        ({"packages": [{"name": "x", "price": -1, "slug": "x"}]}, "packages.0.price", ""),
        ({"packages": [{"name": "x", "price": "abc", "slug": "x"}]}, "packages.0.price", ""),
        ({"packages": [{"name": "", "price": 1, "slug": "x"}]}, "packages.0.name", ""),
        ({"packages": [{"name": "x", "price": 1, "slug": "no spaces"}]}, "packages.0.slug", ""),
        ({"packages": [{"name": "x", "price": 1}]}, "packages.0.slug", ""),
        (
            {"packages": [{"name": "x", "price": 1, "slug": "x", "image_url": "javascript:1"}]},
            "packages.0.image_url",
            "",
        ),
        (
            {"packages": [{"name": "x", "price": 1, "slug": "x", "custom": {"k": 1}}]},
            "packages.0.custom.k",
            "",
        ),
        ({"packages": offer(1) + offer(1)}, "packages", "used twice"),
        ({"category_id": "four"}, "category_id", ""),
    ],
)
def test_bad_input_is_422_naming_the_field(
    demo: DemoStore, invoke: Invoke, player_basket: Basket, fields: dict[str, Any], field: str, detail: str
) -> None:
    response = put(invoke, demo, player_basket, **fields)
    assert response.status == 422, response.body
    body = response.json()
    assert field in [d["field"] for d in body["field_details"]]
    assert detail in body["detail"]
    assert BasketRepository(demo.table).get(player_basket.ident).dynamic_packages == []


def test_basket_not_authenticated_yet(
    demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket]
) -> None:
    basket = make_basket()
    response = put(invoke, demo, basket, username="Steve")
    assert response.status == 422
    assert response.json()["field_details"][0]["field"] == "username"
    assert "auth link" in response.json()["detail"]


def test_unknown_and_complete_baskets(
    demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket], player_basket: Basket
) -> None:
    ghost = player_basket.model_copy(update={"ident": "1-" + "c" * 32})
    unknown = put(invoke, demo, ghost)
    assert unknown.status == 404
    assert unknown.json()["detail"] == "Basket not found"
    paid = make_basket(username="Steve", username_id=5, complete=True)
    assert put(invoke, demo, paid).status == 409


@pytest.fixture
def more_dynamic_categories(demo: DemoStore) -> list[int]:
    """Three more dynamic categories, written as the catalog import writes them."""
    repo = StoreRepository(demo.table)
    ids = [90, 91, 92]
    for category_id in ids:
        category = Category(id=category_id, name=f"Offers {category_id}", dynamic=True)
        demo.table.put(repo.entity_item(1, category))
    return ids


def test_a_basket_holds_a_bounded_number_of_dynamic_packages(
    demo: DemoStore, invoke: Invoke, player_basket: Basket, more_dynamic_categories: list[int]
) -> None:
    first, second, _ = more_dynamic_categories
    assert put(invoke, demo, player_basket, packages=offer(50)).status == 200
    assert put(invoke, demo, player_basket, category_id=first, packages=offer(50, "first")).status == 200
    over = put(invoke, demo, player_basket, category_id=second, packages=offer(1, "second"))
    assert over.status == 422
    assert "at most 100" in over.json()["detail"]
    # Replacing a category frees its room.
    assert put(invoke, demo, player_basket, category_id=first, packages=[]).status == 200
    assert put(invoke, demo, player_basket, category_id=second, packages=offer(1, "second")).status == 200


def test_a_basket_dynamic_packages_are_bounded_in_size(
    demo: DemoStore, invoke: Invoke, player_basket: Basket, more_dynamic_categories: list[int]
) -> None:
    def big(category: int) -> list[dict[str, Any]]:
        return [
            {"name": "n" * 200, "price": 1, "slug": f"big-{category}-{i}", "description": "d" * 2000}
            for i in range(25)
        ]

    for category_id in (DYNAMIC, *more_dynamic_categories[:2]):
        assert (
            put(invoke, demo, player_basket, category_id=category_id, packages=big(category_id)).status == 200
        )
    last = more_dynamic_categories[2]
    refused = put(invoke, demo, player_basket, category_id=last, packages=big(last))
    assert refused.status == 422
    assert "bytes" in refused.json()["detail"]
    assert len(BasketRepository(demo.table).get(player_basket.ident).dynamic_packages) == 75
