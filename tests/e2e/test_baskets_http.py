"""A basket over HTTP against the local stack: create -> add -> coupon -> gift card -> get."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.e2e


def test_basket_flow_over_http(local_stack: dict[str, Any]) -> None:
    headless = local_stack["headless_url"]
    host = headless.split("/api/")[0]
    with httpx.Client(timeout=10) as http:
        created = http.post(
            f"{headless}/baskets",
            json={"username": "Notch", "complete_url": "http://localhost:3000/done", "custom": {"ref": 7}},
        )
        assert created.status_code == 200, created.text
        ident = created.json()["data"]["ident"]

        added = http.post(
            f"{host}/api/baskets/{ident}/packages", json={"package_id": "pkg_3_20", "quantity": 2}
        )
        assert added.status_code == 200, added.text
        assert added.json()["data"]["total_price"] == 3.58  # 2 x 1.99 less the 10% crate sale

        coupon = http.post(f"{headless}/baskets/{ident}/coupons", json={"coupon_code": "WELCOME10"})
        assert coupon.json() == {"success": True, "message": "Coupon applied successfully"}
        card = http.post(f"{host}/api/baskets/{ident}/giftcards", json={"card_number": "GIFT-0000-0000-0001"})
        assert card.json() == {"success": True, "message": "Gift card applied successfully"}
        bad = http.post(f"{headless}/baskets/{ident}/creator-codes", json={"creator_code": "NOBODY"})
        assert bad.status_code == 422
        assert bad.json()["field_details"][0]["field"] == "creator_code"

        got = http.get(f"{headless}/baskets/{ident}")
        assert got.status_code == 200
        assert got.headers["content-type"] == "application/json"
        data = got.json()["data"]
        assert data["username"] == "Notch"
        assert data["custom"] == {"ref": 7}
        assert data["coupons"] == [{"code": "WELCOME10", "coupon_code": "WELCOME10"}]
        assert data["giftcards"] == [{"card_number": "GIFT-0000-0000-0001"}]
        assert data["total_price"] == 3.22
        assert data["links"]["checkout"].endswith(f"/checkout/{ident}")

        removed = http.post(f"{host}/api/baskets/{ident}/packages/remove", json={"package_id": 20})
        assert removed.json()["data"]["packages"] == []
        assert http.get(f"{headless}/baskets/1-{'0' * 32}").json()["detail"] == "Basket not found"
