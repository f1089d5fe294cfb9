"""Sales through the operator's real handlers: the active ones."""

from __future__ import annotations

from functions.operator import (
    get_sales,
)
from tests.integration.operator.support import call
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke


def test_sales_are_the_active_ones(demo: DemoStore, invoke: Invoke) -> None:
    sales = call(invoke, demo, get_sales, "GET", "/sales").json()["data"]
    assert len(sales) == 1
    assert sales[0]["name"] == "Crate week" and sales[0]["effective"] == {
        "type": "category",
        "packages": [],
        "categories": [3],
    }
    assert sales[0]["discount"]["percentage"] == 10.0 and isinstance(sales[0]["start"], int)
