"""Concurrent edits of one basket land, none answers 409 (issue 10.16): sixteen writers add the
same package at once (a double-click, two tabs, a script), and the quantity counts every one."""

from __future__ import annotations

from functions.storefront import add_basket_package, create_basket
from tests.support import in_threads
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore.repo.baskets import BasketRepository

WRITERS = 16


def test_sixteen_concurrent_adds_all_land(demo: DemoStore, invoke: Invoke) -> None:
    created = invoke(create_basket.handler, "POST", f"/api/accounts/{demo.token}/baskets", body={})
    ident = created.json()["data"]["ident"]
    statuses: list[int] = []

    def add() -> None:
        response = invoke(
            add_basket_package.handler, "POST", f"/api/baskets/{ident}/packages", body={"package_id": 10}
        )
        statuses.append(response.status)

    in_threads(add, [() for _ in range(WRITERS)])

    assert statuses == [200] * WRITERS
    [line] = BasketRepository(demo.table).get(ident).lines
    assert line.quantity == WRITERS  # nothing lost, nothing doubled
