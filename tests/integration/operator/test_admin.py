"""Operator admin endpoints through the real handlers: coupons, goals, packages, bans, sales."""

from __future__ import annotations

from typing import Any

import pytest

from functions.operator import (
    create_ban,
    create_coupon,
    delete_coupon,
    get_bans,
    get_community_goal,
    get_community_goals,
    get_coupon,
    get_coupons,
    get_package,
    get_packages,
    get_sales,
    get_user,
    update_package,
)
from tests.conftest import DemoStore, Invoke
from tests.integration.operator.support import manual_payment, secret_headers
from webstore import keys

COUPON = {"code": "SPRING", "effective_on": "cart", "discount_type": "percentage", "discount_percentage": 15}


def call(invoke: Invoke, demo: DemoStore, module: Any, method: str, path: str, **kwargs: Any) -> Any:
    return invoke(module.handler, method, path, headers=secret_headers(demo.server_secret), **kwargs)


def test_create_get_delete_coupon(demo: DemoStore, invoke: Invoke) -> None:
    body = {
        **COUPON,
        "redeem_unlimited": False,
        "expire_limit": 50,
        "expire_never": False,
        "expire_date": "2027-01-31",
        "start_date": "2026-01-01",
        "basket_type": "single",
        "minimum": 10,
        "discount_application_method": 1,
        "username": "Steve",
        "note": "spring sale",
        "user_limit": 2,
    }
    created = call(invoke, demo, create_coupon, "POST", "/coupons", body=body)
    assert created.status == 200, created.body
    coupon = created.json()["data"]
    assert coupon["code"] == "SPRING" and coupon["id"] == 4
    assert coupon["effective"] == {"type": "cart", "packages": [], "categories": []}
    assert coupon["discount"] == {"type": "percentage", "percentage": 15.0, "value": 0.0}
    assert coupon["expire"]["redeem_unlimited"] == "false" and coupon["expire"]["expire_never"] == "false"
    assert coupon["expire"]["limit"] == 50 and coupon["expire"]["date"].startswith("2027-01-31")
    assert coupon["basket_type"] == "single" and coupon["minimum"] == 10.0 and coupon["user_limit"] == 2
    assert call(invoke, demo, get_coupon, "GET", "/coupons/4").json() == {"data": coupon}
    duplicate = call(invoke, demo, create_coupon, "POST", "/coupons", body=COUPON)
    assert duplicate.status == 409 and "code" in duplicate.json()["error_message"]
    deleted = call(invoke, demo, delete_coupon, "DELETE", "/coupons/4")
    assert deleted.status == 204 and deleted.body == ""
    assert call(invoke, demo, get_coupon, "GET", "/coupons/4").status == 404
    assert call(invoke, demo, delete_coupon, "DELETE", "/coupons/4").status == 404


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"effective_on": "package"}, "packages"),
        ({"effective_on": "package", "packages": [999]}, "packages"),
        ({"packages": [10]}, "packages"),
        ({"effective_on": "category"}, "categories"),
        ({"effective_on": "cart", "categories": [1]}, "categories"),
        ({"discount_percentage": 0}, "discount_percentage"),
        ({"discount_percentage": 150}, "discount_percentage"),
        ({"discount_type": "value"}, "discount_amount"),
        ({"redeem_unlimited": False}, "expire_limit"),
        ({"expire_limit": 5}, "expire_limit"),
        ({"expire_never": False}, "expire_date"),
        ({"expire_date": "2027-01-01"}, "expire_date"),
        ({"expire_never": False, "expire_date": "2027-13-01"}, "expire_date"),
        ({"expire_never": False, "expire_date": "2026-01-01", "start_date": "2026-02-01"}, "expire_date"),
        ({"basket_type": "weekly"}, "basket_type"),
        ({"discount_application_method": 3}, "discount_application_method"),
        ({"username": "no spaces"}, "username"),
        ({"code": ""}, "code"),
        ({"effective_on": None}, "effective_on"),
    ],
)
def test_coupon_combinations_are_validated(
    demo: DemoStore, invoke: Invoke, changes: dict[str, Any], field: str
) -> None:
    response = call(invoke, demo, create_coupon, "POST", "/coupons", body={**COUPON, **changes})
    assert response.status == 422, response.body
    assert field in response.json()["error_message"]


def test_coupon_list_paginates_by_cursor_with_totals(demo: DemoStore, invoke: Invoke) -> None:
    for i in range(30):
        assert (
            call(invoke, demo, create_coupon, "POST", "/coupons", body={**COUPON, "code": f"C{i:02d}"}).status
            == 200
        )
    first = call(invoke, demo, get_coupons, "GET", "/coupons").json()
    assert first["pagination"]["totalResults"] == 33 and first["pagination"]["lastPage"] == 2
    assert first["pagination"]["currentPage"] == 1 and first["pagination"]["previous"] is None
    assert [c["id"] for c in first["data"]] == list(range(1, 26))
    next_query = dict(part.split("=") for part in first["pagination"]["next"].split("?", 1)[1].split("&"))
    second = call(invoke, demo, get_coupons, "GET", "/coupons", query=next_query).json()
    assert [c["id"] for c in second["data"]] == list(range(26, 34))
    assert second["pagination"]["next"] is None and second["pagination"]["currentPage"] == 2
    prev_query = dict(
        part.split("=") for part in second["pagination"]["previous"].split("?", 1)[1].split("&")
    )
    assert [
        c["id"] for c in call(invoke, demo, get_coupons, "GET", "/coupons", query=prev_query).json()["data"]
    ] == list(range(1, 26))
    jumped = call(invoke, demo, get_coupons, "GET", "/coupons", query={"page": "2"}).json()
    assert [c["id"] for c in jumped["data"]] == list(range(26, 34))
    call(invoke, demo, delete_coupon, "DELETE", "/coupons/2")
    assert call(invoke, demo, get_coupons, "GET", "/coupons").json()["pagination"]["totalResults"] == 32


def test_community_goals(demo: DemoStore, invoke: Invoke) -> None:
    goals = call(invoke, demo, get_community_goals, "GET", "/community_goals").json()
    assert [g["id"] for g in goals] == [1]
    goal = call(invoke, demo, get_community_goal, "GET", "/community_goals/1").json()
    assert goal == goals[0]
    assert goal["target"] == "250.00" and goal["current"] == "0.00" and goal["status"] == "active"
    assert goal["repeatable"] == 0 and goal["account"] == 1 and goal["created_at"] == "2024-01-01 00:00:00"
    assert call(invoke, demo, get_community_goal, "GET", "/community_goals/9").status == 404
    manual_payment(invoke, demo.server_secret, packages=[{"id": 20}], price=260)
    done = call(invoke, demo, get_community_goal, "GET", "/community_goals/1").json()
    assert done["status"] == "completed" and done["times_achieved"] == 1 and done["last_achieved"]


def test_packages_list_get_update(demo: DemoStore, invoke: Invoke) -> None:
    packages = call(invoke, demo, get_packages, "GET", "/packages").json()
    assert [p["id"] for p in packages] == [1, 2, 10, 11, 12, 20]
    sword = next(p for p in packages if p["id"] == 10)
    assert sword["servers"] == [{"id": 1, "name": "Survival"}, {"id": 2, "name": "Creative"}]
    assert sword["category"] == {"id": 2, "name": "Items"} and "description" not in sword
    crate = call(invoke, demo, get_package, "GET", "/package/20").json()
    assert crate["sale"] == {"active": True, "discount": 0.2}
    verbose = call(invoke, demo, get_package, "GET", "/package/1", query={"verbose": "true"}).json()
    assert "VIP rank" in verbose["description"]
    updated = call(
        invoke,
        demo,
        update_package,
        "PUT",
        "/package/10",
        body={"name": "Sharp Sword", "price": 3, "disabled": True},
    )
    assert updated.status == 200
    assert (updated.json()["name"], updated.json()["price"], updated.json()["disabled"]) == (
        "Sharp Sword",
        3.0,
        True,
    )
    assert call(invoke, demo, get_package, "GET", "/package/10").json()["name"] == "Sharp Sword"
    assert call(invoke, demo, update_package, "PUT", "/package/999", body={"name": "X"}).status == 404
    assert call(invoke, demo, update_package, "PUT", "/package/10", body={}).status == 422
    assert call(invoke, demo, update_package, "PUT", "/package/10", body={"price": -1}).status == 422
    assert call(invoke, demo, get_package, "GET", "/package/abc").status == 404


def test_bans_by_username_and_uuid(demo: DemoStore, invoke: Invoke) -> None:
    manual_payment(
        invoke, demo.server_secret, ign="Griefer", packages=[{"id": 20}], price=2, email="g@example.test"
    )
    by_name = call(
        invoke,
        demo,
        create_ban,
        "POST",
        "/bans",
        body={"user": "Griefer", "reason": "griefing", "ip": "203.0.113.9"},
    )
    assert by_name.status == 200, by_name.body
    ban = by_name.json()["data"]
    assert ban["user"] == {"ign": "Griefer", "uuid": keys.player_uuid("Griefer")}
    assert (
        ban["ip"] == "203.0.113.9"
        and ban["payment_email"] == "g@example.test"
        and ban["reason"] == "griefing"
    )
    by_uuid = call(
        invoke, demo, create_ban, "POST", "/bans", body={"user": keys.player_uuid("Griefer").replace("-", "")}
    ).json()["data"]
    assert by_uuid["user"]["ign"] == "Griefer"
    listed = call(invoke, demo, get_bans, "GET", "/bans").json()
    assert [b["id"] for b in listed["data"]] == [by_uuid["id"], ban["id"]]
    assert call(invoke, demo, get_user, "GET", "/user/Griefer").json()["banCount"] == 2
    assert (
        call(invoke, demo, create_ban, "POST", "/bans", body={"user": "Griefer", "ip": "999.1.1.1"}).status
        == 422
    )
    assert call(invoke, demo, create_ban, "POST", "/bans", body={"reason": "x"}).status == 422


def test_sales_are_the_active_ones(demo: DemoStore, invoke: Invoke) -> None:
    sales = call(invoke, demo, get_sales, "GET", "/sales").json()["data"]
    assert len(sales) == 1
    assert sales[0]["name"] == "Crate week" and sales[0]["effective"] == {
        "type": "category",
        "packages": [],
        "categories": [3],
    }
    assert sales[0]["discount"]["percentage"] == 10.0 and isinstance(sales[0]["start"], int)
