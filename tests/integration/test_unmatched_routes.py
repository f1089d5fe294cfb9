"""What API Gateway matches to no route reaches the interface's `$default` function: doubled
slashes (COMPAT: `//queue`) are served as the local server serves them; the rest is a 404 in
the interface's own error shape."""

from __future__ import annotations

from functions.unmatched import operator_handler, storefront_handler
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke


def test_doubled_slashes_reach_the_operation(demo: DemoStore, invoke: Invoke) -> None:
    secret = {"X-Tebex-Secret": demo.server_secret}
    queue = invoke(operator_handler, "GET", "//queue", headers=secret)
    assert queue.status == 200, queue.body
    assert set(queue.json()["meta"]) == {"execute_offline", "next_check", "more"}
    info = invoke(operator_handler, "GET", "//information", headers=secret)
    assert info.json()["account"]["id"] == 1
    store = invoke(storefront_handler, "GET", f"/api/accounts/{demo.token}//categories")
    assert store.status == 200 and store.json()["data"][0]["name"] == "Ranks"


def test_unknown_paths_get_the_interface_error_body(demo: DemoStore, invoke: Invoke) -> None:
    missing = invoke(
        operator_handler, "GET", "/no-such-thing", headers={"X-Tebex-Secret": demo.server_secret}
    )
    assert missing.status == 404
    assert set(missing.json()) == {"error_code", "error_message"}
    page = invoke(storefront_handler, "GET", "/api/nothing/here")
    assert page.status == 404
    assert page.json()["status"] == 404 and "field_details" in page.json()
