"""Storefront catalog reads through their Lambda handlers (API Gateway v2 events, moto)."""

from __future__ import annotations

import pytest

from functions.storefront import (
    get_categories,
    get_category,
    get_package,
    get_packages,
    get_pages,
    get_webstore,
)
from tests.integration.storefront.support import base
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke


def test_webstore(demo: DemoStore, invoke: Invoke) -> None:
    for path in (base(demo), base(demo) + "/"):
        response = invoke(get_webstore.handler, "GET", path)
        assert response.status == 200
        assert response.headers["content-type"] == "application/json"
        data = response.json()["data"]
        assert data["id"] == 1
        assert data["name"] == "Demo Craft"
        assert data["currency"] == "USD"
        assert data["supports_usernames"] is True


@pytest.mark.parametrize(
    "token",
    ["nope", "1-00000000000000000000000000000000", "zzzzzz-0123456789abcdef0123456789abcdef", ""],
)
def test_unknown_token_is_404_with_error_body(demo: DemoStore, invoke: Invoke, token: str) -> None:
    response = invoke(get_webstore.handler, "GET", f"/api/accounts/{token}/")
    assert response.status == 404
    body = response.json()
    assert body["status"] == 404
    assert body["title"] == "Not found"
    assert {"type", "detail", "instance", "error_code", "field_details"} <= body.keys()


def test_pages(demo: DemoStore, invoke: Invoke) -> None:
    data = invoke(get_pages.handler, "GET", base(demo) + "/pages").json()["data"]
    assert [p["slug"] for p in data] == ["rules", "refunds"]
    assert data[0]["account_id"] == 1
    assert "<h1>Rules</h1>" in data[0]["content"]


def test_categories_without_and_with_packages(demo: DemoStore, invoke: Invoke) -> None:
    plain = invoke(get_categories.handler, "GET", base(demo) + "/categories").json()["data"]
    assert [c["name"] for c in plain] == ["Ranks", "Items", "Crates", "Custom offers"]
    assert all(c["packages"] is None for c in plain)
    crates = plain[2]
    assert crates["parent"]["id"] == 2

    full = invoke(
        get_categories.handler, "GET", base(demo) + "/categories", query={"includePackages": "1"}
    ).json()["data"]
    by_name = {c["name"]: c for c in full}
    items = [p["ident"] for p in by_name["Items"]["packages"]]
    assert items == ["pkg_2_10", "pkg_2_11", "pkg_2_12", "pkg_2_13"]
    # The dynamic category has no packages without a basket: left out of a listing with
    # packages (the official headless starter reads `packages[0]` of every category; a 500
    # on its home page otherwise), listed without packages.
    assert "Custom offers" not in by_name and all(c["packages"] for c in full)
    assert next(c for c in plain if c["name"] == "Custom offers")["dynamic"] is True
    assert by_name["Ranks"]["tiered"] is True


def test_sale_prices_are_numbers(demo: DemoStore, invoke: Invoke) -> None:
    package = invoke(get_package.handler, "GET", base(demo) + "/packages/legendary-key").json()["data"]
    assert package["base_price"] == 1.99
    assert package["discount"] == 0.2  # 10% crate sale, rounded once
    assert package["total_price"] == 1.79
    assert package["ident"] == "pkg_3_20"


def test_package_by_id_slug_or_ident(demo: DemoStore, invoke: Invoke) -> None:
    for ref in ("10", "diamond-sword", "pkg_2_10"):
        data = invoke(get_package.handler, "GET", f"{base(demo)}/packages/{ref}").json()["data"]
        assert data["id"] == 10
        assert data["category"] == {"id": 2, "name": "Items"}
    missing = invoke(get_package.handler, "GET", f"{base(demo)}/packages/999")
    assert missing.status == 404
    assert missing.json()["detail"] == "Package not found"


def test_packages_list(demo: DemoStore, invoke: Invoke) -> None:
    data = invoke(get_packages.handler, "GET", base(demo) + "/packages").json()["data"]
    assert {p["id"] for p in data} == {1, 2, 10, 11, 12, 13, 20}
    assert all(p["ident"].startswith("pkg_") for p in data)


def test_category_by_id_or_slug(demo: DemoStore, invoke: Invoke) -> None:
    by_slug = invoke(
        get_category.handler, "GET", base(demo) + "/categories/crates", query={"includePackages": "1"}
    ).json()["data"]
    assert by_slug["id"] == 3
    assert [p["id"] for p in by_slug["packages"]] == [20]
    assert invoke(get_category.handler, "GET", base(demo) + "/categories/404").status == 404


def test_unknown_basket_ident_is_404(demo: DemoStore, invoke: Invoke) -> None:
    response = invoke(
        get_packages.handler, "GET", base(demo) + "/packages", query={"basketIdent": "1-" + "0" * 32}
    )
    assert response.status == 404
    assert response.json()["detail"] == "Basket not found"


def test_oversized_query_is_422_naming_the_field(demo: DemoStore, invoke: Invoke) -> None:
    response = invoke(get_packages.handler, "GET", base(demo) + "/packages", query={"basketIdent": "x" * 500})
    assert response.status == 422
    assert response.json()["field_details"][0]["field"] == "basketIdent"
