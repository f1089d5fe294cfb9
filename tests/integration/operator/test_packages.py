"""Packages through the operator's real handlers: list, get, update."""

from __future__ import annotations

from functions.operator import (
    get_package,
    get_packages,
    update_package,
)
from tests.integration.operator.support import call
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke


def test_packages_list_get_update(demo: DemoStore, invoke: Invoke) -> None:
    packages = call(invoke, demo, get_packages, "GET", "/packages").json()
    assert [p["id"] for p in packages] == [1, 2, 10, 11, 12, 13, 20]
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
