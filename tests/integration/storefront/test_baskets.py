"""Baskets through their Lambda handlers: create, get, add / remove / change quantity of packages."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from functions.storefront import (
    create_basket,
    get_basket,
    remove_basket_package,
    update_basket_package_quantity,
)
from tests.integration.storefront.support import add, assert_error, base, create
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from webstore import keys
from webstore.basket import DynamicPackage
from webstore.catalog_import import ImportResult
from webstore.errors import Conflict
from webstore.repo.baskets import BasketRepository
from webstore.services import get_services
from webstore.storefront import basket_read
from webstore.storefront import baskets as basket_use_cases

# --- create and get -------------------------------------------------------------------------


def test_create_with_every_field_and_get_it_back(demo: DemoStore, invoke: Invoke) -> None:
    body = {
        "complete_url": "http://localhost:3000/done",  # the demo store's own site
        "cancel_url": "http://127.0.0.1:3000/cancel",  # one of its allowed_return_hosts
        "custom": {"discord": "123", "n": 1, "f": 1.5, "nested": {"list": [1, "two", None, True]}},
        "complete_auto_redirect": True,
        "username": "Notch",
        "email": "notch@example.com",
    }
    response = invoke(
        create_basket.handler,
        "POST",
        base(demo) + "/baskets",
        body=body,
        query={"ip_address": "198.51.100.7"},
    )
    assert response.status == 200
    created = response.json()["data"]
    assert keys.account_of(created["ident"]) == 1
    assert created["id"] == created["ident"]
    assert created["username"] == "Notch"
    assert isinstance(created["username_id"], int)
    assert created["ip"] == "198.51.100.7"
    assert created["currency"] == "USD"
    assert created["packages"] == [] and created["coupons"] == [] and created["giftcards"] == []
    assert created["links"] == {"checkout": f"https://shop.test/checkout/{created['ident']}"}

    got = invoke(get_basket.handler, "GET", f"{base(demo)}/baskets/{created['ident']}").json()["data"]
    assert got == created
    assert got["custom"] == body["custom"]  # numbers come back as numbers

    stored = BasketRepository(demo.table).get(created["ident"])
    assert stored.notify_abandoned is True
    assert stored.expires_at is not None
    assert stored.expires_at - stored.created_at.timestamp() == pytest.approx(604800, abs=2)


def test_create_with_no_body_uses_the_caller_address(demo: DemoStore, invoke: Invoke) -> None:
    response = invoke(create_basket.handler, "POST", base(demo) + "/baskets", source_ip="192.0.2.44")
    assert response.status == 200
    data = response.json()["data"]
    assert data["ip"] == "192.0.2.44"
    assert data["username"] is None and data["username_id"] is None


def test_same_username_gets_the_same_player_id(demo: DemoStore, invoke: Invoke) -> None:
    first = create(demo, invoke, username="jeb_")
    second = create(demo, invoke, username="JEB_")
    assert first["username_id"] == second["username_id"]
    assert second["username"] == "jeb_"


@pytest.mark.parametrize("token", ["nope", "1-" + "0" * 32, "zz-" + "0" * 32])
def test_create_with_an_invalid_store_is_422(demo: DemoStore, invoke: Invoke, token: str) -> None:
    response = invoke(create_basket.handler, "POST", f"/api/accounts/{token}/baskets", body={})
    assert_error(response, 422, "token", "store ID is invalid")


@pytest.mark.parametrize(
    ("body", "query", "field"),
    [
        ({"complete_url": "javascript:alert(1)"}, {}, "complete_url"),
        ({"cancel_url": "ftp://x.test/"}, {}, "cancel_url"),
        ({"complete_url": "https://evil.example/phish"}, {}, "complete_url"),  # not the store's site
        ({"cancel_url": "https://localhost.evil.example/"}, {}, "cancel_url"),
        ({"complete_url": "https://x.test/" + "a" * 3000}, {}, "complete_url"),
        ({"username": "no spaces allowed"}, {}, "username"),
        ({"username": "x" * 65}, {}, "username"),
        ({"email": "not-an-email"}, {}, "email"),
        ({"custom": {"blob": "x" * 9000}}, {}, "custom"),
        ({"custom": {"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": 1}}}}}}}}}}, {}, "custom"),
        ({"custom": {"big": 1e300}}, {}, "custom"),
        ({"custom": "a string"}, {}, "custom"),
        ({"complete_auto_redirect": "maybe"}, {}, "complete_auto_redirect"),
        ({}, {"ip_address": "999.1.1.1"}, "ip_address"),
        ({}, {"ip_address": "1" * 65}, "ip_address"),
    ],
)
def test_create_refuses_bad_input_naming_the_field(
    demo: DemoStore, invoke: Invoke, body: dict[str, Any], query: dict[str, str], field: str
) -> None:
    response = invoke(create_basket.handler, "POST", base(demo) + "/baskets", body=body, query=query)
    assert_error(response, 422, field)


def test_oversized_body_is_413(demo: DemoStore, invoke: Invoke) -> None:
    raw = '{"custom": {"x": "' + "a" * 70_000 + '"}}'
    response = invoke(create_basket.handler, "POST", base(demo) + "/baskets", raw_body=raw)
    assert response.status == 413


def test_get_unknown_or_foreign_basket_is_404(
    demo: DemoStore, invoke: Invoke, other_store: ImportResult
) -> None:
    foreign = basket_use_cases.create_basket(
        get_services(), other_store.public_token, basket_use_cases.NewBasket(), "192.0.2.1"
    )
    for ident in (foreign.ident, "1-" + "0" * 32, "garbage"):
        assert_error(
            invoke(get_basket.handler, "GET", f"{base(demo)}/baskets/{ident}"), 404, None, "Basket not found"
        )
    # The right basket with a token that is not the store's current one
    own = create(demo, invoke)
    wrong_token = "1-" + "f" * 32
    assert (
        invoke(get_basket.handler, "GET", f"/api/accounts/{wrong_token}/baskets/{own['ident']}").status == 404
    )


# --- adding packages --------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["/api", None])
def test_add_by_id_or_ident_with_and_without_token(
    demo: DemoStore, invoke: Invoke, prefix: str | None
) -> None:
    ident = create(demo, invoke)["ident"]
    path_prefix = prefix or base(demo)
    first = add(invoke, ident, path_prefix, package_id=20, quantity=2)
    assert first.status == 200, first.body
    again = add(invoke, ident, path_prefix, package_id="pkg_3_20", quantity=1)
    data = again.json()["data"]
    [line] = data["packages"]
    assert line["ident"] == "pkg_3_20"
    assert line["in_basket"] == {
        "quantity": 3,
        "price": 1.79,
        "gift_username_id": None,
        "gift_username": None,
    }
    assert line["is_recurring"] is False and line["revenue_share"] == []
    assert data["base_price"] == 5.97
    assert data["total_price"] == 5.37  # 3 x 1.791 rounded once


def test_subscription_line_is_recurring_and_disable_quantity_holds_one(
    demo: DemoStore, invoke: Invoke
) -> None:
    ident = create(demo, invoke)["ident"]
    add(invoke, ident, package_id=1, quantity=5)
    data = add(invoke, ident, package_id=1).json()
    [line] = data["data"]["packages"]
    assert line["type"] == "subscription" and line["is_recurring"] is True
    assert line["in_basket"]["quantity"] == 1
    assert data["data"]["total_price"] == 4.99


def test_variables_are_required_and_kept(demo: DemoStore, invoke: Invoke) -> None:
    ident = create(demo, invoke)["ident"]
    assert_error(add(invoke, ident, package_id=13), 422, "variable_data.note")
    assert_error(add(invoke, ident, package_id=13, variable_data={"note": "  "}), 422, "variable_data.note")
    assert add(invoke, ident, package_id=13, variable_data={"note": "for my base", "extra": 5}).status == 200
    stored = BasketRepository(demo.table).get(ident)
    assert stored.lines[0].variable_data == {"note": "for my base", "extra": "5"}


def test_gifts_are_separate_lines_per_recipient(demo: DemoStore, invoke: Invoke) -> None:
    ident = create(demo, invoke, username="Notch")["ident"]
    add(invoke, ident, package_id=10)
    add(invoke, ident, package_id=10, target_username_id="jeb_")
    add(invoke, ident, package_id=10, target_username_id="Dinnerbone", quantity=2)
    add(invoke, ident, package_id=10, target_username_id="notch")  # a gift to oneself is one's own
    lines = get_lines(demo, invoke, ident)
    assert [(x["in_basket"]["gift_username"], x["in_basket"]["quantity"]) for x in lines] == [
        (None, 2),
        ("jeb_", 1),
        ("Dinnerbone", 2),
    ]
    assert all(
        x["in_basket"]["gift_username_id"] is None or x["in_basket"]["gift_username_id"].isdigit()
        for x in lines
    )


def get_lines(demo: DemoStore, invoke: Invoke, ident: str) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = invoke(get_basket.handler, "GET", f"{base(demo)}/baskets/{ident}").json()[
        "data"
    ]["packages"]
    return lines


def test_gifting_refused_where_the_package_or_store_forbids_it(demo: DemoStore, invoke: Invoke) -> None:
    ident = create(demo, invoke)["ident"]
    assert_error(add(invoke, ident, package_id=12, target_username_id="jeb_"), 422, "target_username_id")
    assert_error(add(invoke, ident, package_id=10, target_username_id="bad name!"), 422, "target_username_id")
    store_key = keys.key(keys.store_pk(1), keys.STORE_ITEM)
    demo.table.update(store_key, "SET supports_gifting = :f", values={":f": False})
    assert_error(add(invoke, ident, package_id=10, target_username_id="jeb_"), 422, "target_username_id")


def test_user_limit_counts_basket_and_past_purchases(demo: DemoStore, invoke: Invoke) -> None:
    anonymous = create(demo, invoke)["ident"]
    assert add(invoke, anonymous, package_id=12).status == 200
    assert add(invoke, anonymous, package_id=12).status == 200  # disable_quantity: still 1

    player = create(demo, invoke, username="Notch")
    demo.table.put(
        {
            **keys.key(keys.account_pk(1), keys.purchases_sk(player["username_id"])),
            "entity": "purchases",
            keys.purchased_attribute(12): 1,
        }
    )
    assert_error(add(invoke, player["ident"], package_id=12), 422, "quantity", "limited to 1 per player")


def test_add_refuses_bad_input(demo: DemoStore, invoke: Invoke) -> None:
    ident = create(demo, invoke)["ident"]
    assert_error(add(invoke, ident, package_id=999), 404, None, "Package not found")
    assert_error(add(invoke, ident, package_id="pkg_1_10"), 404, None, "Package not found")  # wrong category
    assert_error(add(invoke, ident, package_id="dyn_4_1"), 404, None, "Package not found")
    assert_error(add(invoke, ident, package_id="sword"), 422, "package_id")
    assert_error(add(invoke, ident, package_id=10, quantity=0), 422, "quantity")
    assert_error(add(invoke, ident, package_id=10, quantity=1001), 422, "quantity")
    assert_error(add(invoke, ident, package_id=10, type="subscription"), 422, "type")
    assert_error(add(invoke, ident, quantity=1), 422, "package_id")
    assert_error(add(invoke, ident, package_id=10, variable_data={"k": "v" * 501}), 422)
    # 1,000 Diamond Swords would make a payment record too large to store (issue 10, item 1)
    assert_error(add(invoke, ident, package_id=10, quantity=1000), 422, "quantity", "cannot be recorded")
    assert add(invoke, ident, package_id=10, quantity=200).status == 200
    assert_error(add(invoke, ident, package_id=10, quantity=100), 422, "quantity")  # 300 do not fit
    assert_error(add(invoke, "1-" + "0" * 32, package_id=10), 404, None, "Basket not found")


def test_disabled_package_is_not_found(demo: DemoStore, invoke: Invoke) -> None:
    ident = create(demo, invoke)["ident"]
    demo.table.update(
        keys.key(keys.store_pk(1), keys.package_sk(10)), "SET disabled = :t", values={":t": True}
    )
    assert_error(add(invoke, ident, package_id=10), 404, None, "Package not found")


def test_line_limit(demo: DemoStore, invoke: Invoke) -> None:
    ident = create(demo, invoke)["ident"]
    repository = BasketRepository(demo.table)
    basket = repository.get(ident)
    basket.dynamic_packages = [
        DynamicPackage(id=i, category_id=4, name=f"Offer {i}", price=Decimal("1.00"), slug=f"offer-{i}")
        for i in range(1, 102)
    ]
    repository.save(basket)
    assert add(invoke, ident, package_id="dyn_4_1").status == 200
    basket = repository.get(ident)
    basket.lines = [
        line.model_copy(update={"package_id": i}) for i in range(1, 101) for line in basket.lines[:1]
    ]
    repository.save(basket)
    assert_error(add(invoke, ident, package_id="dyn_4_101"), 422, "package_id", "at most 100 lines")
    assert add(invoke, ident, package_id="dyn_4_100").status == 200  # an existing line still grows


def test_dynamic_packages_by_their_ident(demo: DemoStore, invoke: Invoke) -> None:
    ident = create(demo, invoke)["ident"]
    basket = BasketRepository(demo.table).get(ident)
    basket.dynamic_packages = [
        DynamicPackage(id=1, category_id=4, name="Your offer", price=Decimal("7.25"), slug="your-offer")
    ]
    BasketRepository(demo.table).save(basket)
    data = add(invoke, ident, package_id="dyn_4_1", quantity=3).json()["data"]
    [line] = data["packages"]
    assert line["ident"] == "dyn_4_1" and line["name"] == "Your offer"
    assert line["in_basket"]["quantity"] == 1
    assert data["total_price"] == 7.25
    assert_error(
        add(invoke, ident, package_id="dyn_4_1", target_username_id="jeb_"), 422, "target_username_id"
    )


# --- remove and quantity ------------------------------------------------------------------------


def put_quantity(invoke: Invoke, ident: str, package: str, prefix: str = "/api", **body: Any) -> Response:
    return invoke(
        update_basket_package_quantity.handler,
        "PUT",
        f"{prefix}/baskets/{ident}/packages/{package}",
        body=body,
    )


def remove(invoke: Invoke, ident: str, prefix: str = "/api", **body: Any) -> Response:
    return invoke(
        remove_basket_package.handler, "POST", f"{prefix}/baskets/{ident}/packages/remove", body=body
    )


def test_quantity_and_remove(demo: DemoStore, invoke: Invoke) -> None:
    ident = create(demo, invoke, username="Notch")["ident"]
    add(invoke, ident, package_id=10, quantity=2)
    add(invoke, ident, package_id=20)
    add(invoke, ident, package_id=10, target_username_id="jeb_")

    data = put_quantity(invoke, ident, "10", quantity=5).json()["data"]  # own line preferred
    assert [x["in_basket"]["quantity"] for x in data["packages"]] == [5, 1, 1]
    data = put_quantity(invoke, ident, "pkg_2_10", base(demo), quantity=3, target_username_id="jeb_").json()[
        "data"
    ]
    assert [x["in_basket"]["quantity"] for x in data["packages"]] == [5, 1, 3]
    assert data["total_price"] == 21.79  # 8 x 2.50 + 1.79

    data = remove(invoke, ident, package_id=10, target_username_id="jeb_").json()["data"]
    assert [x["id"] for x in data["packages"]] == [10, 20]
    data = put_quantity(invoke, ident, "20", quantity=0).json()["data"]
    assert [x["id"] for x in data["packages"]] == [10]
    data = remove(invoke, ident, base(demo), package_id="pkg_2_10").json()["data"]
    assert data["packages"] == [] and data["total_price"] == 0

    assert_error(remove(invoke, ident, package_id=10), 422, "package_id", "not in the basket")
    assert_error(put_quantity(invoke, ident, "10", quantity=2), 422, "package_id")
    assert_error(put_quantity(invoke, ident, "10", quantity=-1), 422, "quantity")
    assert_error(put_quantity(invoke, ident, "not-an-id", quantity=1), 422, "package_id")


def test_quantity_respects_disable_quantity(demo: DemoStore, invoke: Invoke) -> None:
    ident = create(demo, invoke)["ident"]
    add(invoke, ident, package_id=1)
    data = put_quantity(invoke, ident, "1", quantity=4).json()["data"]
    assert data["packages"][0]["in_basket"]["quantity"] == 1


def test_ambiguous_quantity_change_asks_for_the_recipient(demo: DemoStore, invoke: Invoke) -> None:
    ident = create(demo, invoke)["ident"]
    add(invoke, ident, package_id=10, target_username_id="jeb_")
    add(invoke, ident, package_id=10, target_username_id="Dinnerbone")
    assert_error(put_quantity(invoke, ident, "10", quantity=2), 422, "target_username_id")


# --- state and races ----------------------------------------------------------------------------


def test_completed_basket_refuses_changes(demo: DemoStore, invoke: Invoke) -> None:
    ident = create(demo, invoke)["ident"]
    add(invoke, ident, package_id=10)
    repository = BasketRepository(demo.table)
    basket = repository.get(ident)
    basket.complete, basket.payment_status, basket.expires_at = True, "complete", None
    repository.save(basket)
    assert_error(add(invoke, ident, package_id=10), 409, None, "complete")
    assert_error(remove(invoke, ident, package_id=10), 409)
    assert_error(put_quantity(invoke, ident, "10", quantity=3), 409)
    data = invoke(get_basket.handler, "GET", f"{base(demo)}/baskets/{ident}").json()["data"]
    assert data["complete"] is True
    assert data["links"] == {"payment": f"https://shop.test/checkout/{ident}/receipt"}
    assert "expires_at" not in demo.table.get(keys.basket_key(ident))


def test_two_saves_from_one_read_one_conflicts(demo: DemoStore, invoke: Invoke) -> None:
    ident = create(demo, invoke)["ident"]
    repository = BasketRepository(demo.table)
    first, second = repository.get(ident), repository.get(ident)
    first.email, second.email = "a@example.com", "b@example.com"
    repository.save(first)
    with pytest.raises(Conflict):
        repository.save(second)
    assert repository.get(ident).email == "a@example.com"


@pytest.fixture
def racing(monkeypatch: pytest.MonkeyPatch, demo: DemoStore) -> Iterator[list[int]]:
    """Makes another writer change the basket right after each of the next N reads."""
    races = [0]
    real_load = basket_read.load

    def load_then_race(*args: Any, **kwargs: Any) -> basket_read.Loaded:
        loaded = real_load(*args, **kwargs)
        if races[0] > 0:
            races[0] -= 1
            other = BasketRepository(demo.table).get(loaded.basket.ident)
            other.email = "racer@example.com"
            BasketRepository(demo.table).save(other)
        return loaded

    monkeypatch.setattr(basket_read, "load", load_then_race)
    yield races


def test_a_lost_race_is_retried_and_keeps_both_changes(
    demo: DemoStore, invoke: Invoke, racing: list[int]
) -> None:
    ident = create(demo, invoke)["ident"]
    racing[0] = 2
    response = add(invoke, ident, package_id=10)
    assert response.status == 200
    basket = BasketRepository(demo.table).get(ident)
    assert basket.email == "racer@example.com" and [x.package_id for x in basket.lines] == [10]


def test_endless_races_end_in_409(demo: DemoStore, invoke: Invoke, racing: list[int]) -> None:
    ident = create(demo, invoke)["ident"]
    racing[0] = 1000  # every attempt of every round loses (retry_contended's rounds are bounded)
    assert_error(add(invoke, ident, package_id=10), 409, None, "another request")
    assert BasketRepository(demo.table).get(ident).lines == []


def test_writes_to_a_foreign_basket_through_a_token_are_404(
    demo: DemoStore, invoke: Invoke, other_store: ImportResult
) -> None:
    foreign = basket_use_cases.create_basket(
        get_services(), other_store.public_token, basket_use_cases.NewBasket(), "192.0.2.1"
    )
    assert_error(add(invoke, foreign.ident, base(demo), package_id=10), 404, None, "Basket not found")
    # without a token the basket's own store is used (COMPAT token-less path)
    assert add(invoke, foreign.ident, package_id=10).status == 200
