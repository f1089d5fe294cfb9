"""Coupons through the operator's real handlers: create, get, list, delete, validation."""

from __future__ import annotations

from typing import Any

import pytest

from functions.operator import (
    create_coupon,
    delete_coupon,
    get_coupon,
    get_coupons,
)
from tests.integration.operator.support import call
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.threads import in_threads

COUPON = {"code": "SPRING", "effective_on": "cart", "discount_type": "percentage", "discount_percentage": 15}


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


def test_concurrent_creates_get_distinct_ids_and_the_count_follows(demo: DemoStore, invoke: Invoke) -> None:
    """The id and the count are written in the coupon's transaction: racing creates retry on
    contention and neither is lost."""
    before = call(invoke, demo, get_coupons, "GET", "/coupons").json()["pagination"]["totalResults"]
    ids: list[int] = []

    def create(index: int) -> None:
        response = call(
            invoke, demo, create_coupon, "POST", "/coupons", body={**COUPON, "code": f"RACE{index}"}
        )
        assert response.status == 200, response.body
        ids.append(response.json()["data"]["id"])

    in_threads(create, [(i,) for i in range(5)])
    assert sorted(ids) == list(range(before + 1, before + 6))  # the demo's coupons hold ids 1..before
    assert (
        call(invoke, demo, get_coupons, "GET", "/coupons").json()["pagination"]["totalResults"] == before + 5
    )
