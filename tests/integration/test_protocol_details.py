"""Protocol details (issue 10.13, 10.15): the body limit holds for bodies without a
Content-Length, 401s carry WWW-Authenticate, 405s carry Allow, the hosted checkout answers an
HTML page on an unexpected error, quantities are JSON integers."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from functions.operator import create_payment
from functions.routes import operations
from functions.runtime import Interface, build_app
from functions.storefront import add_basket_package, create_basket, get_checkout_page, update_tier
from functions.unmatched import operator_handler, storefront_handler
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore.checkout import checkout
from webstore.settings import get_settings

CHUNK = 64 * 1024


def run_chunked(app: Any, path: str, total: int, headers: list[tuple[bytes, bytes]]) -> tuple[int, int]:
    """POST `total` bytes to `app` in chunks, with no Content-Length (chunked transfer, as a
    client streaming a body sends it). Returns (status, chunks the app read)."""
    sent = {"chunks": 0}
    status = {"code": 0}

    async def receive() -> dict[str, Any]:
        sent["chunks"] += 1
        more = sent["chunks"] * CHUNK < total
        return {"type": "http.request", "body": b"{" + b" " * (CHUNK - 1), "more_body": more}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status["code"] = message["status"]

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"content-type", b"application/json"), (b"transfer-encoding", b"chunked"), *headers],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8080),
    }
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(app(scope, receive, send))
    finally:
        loop.close()
        asyncio.set_event_loop(asyncio.new_event_loop())  # Mangum, in later tests, needs one
    return status["code"], sent["chunks"]


def test_a_chunked_body_past_the_limit_is_a_413_and_is_not_read_to_the_end(demo: DemoStore) -> None:
    app = build_app(
        Interface.STOREFRONT, [(op.route, op.endpoint) for op in operations(Interface.STOREFRONT)]
    )
    total = 10 * 1024 * 1024
    status, chunks = run_chunked(app, f"/api/accounts/{demo.token}/baskets", total, [])
    assert status == 413
    limit_chunks = get_settings().max_body_bytes // CHUNK + 1
    assert chunks <= limit_chunks < total // CHUNK  # stopped at the limit, not at 10 MB


def test_a_chunked_body_under_the_limit_still_works(demo: DemoStore) -> None:
    app = build_app(
        Interface.STOREFRONT, [(op.route, op.endpoint) for op in operations(Interface.STOREFRONT)]
    )
    status, _ = run_chunked(app, f"/api/accounts/{demo.token}/baskets", CHUNK // 2, [])
    assert status == 400  # read whole and parsed (the body is not valid JSON), not refused for size


def test_a_401_says_how_to_authenticate(demo: DemoStore, invoke: Invoke) -> None:
    response = invoke(
        update_tier.handler,
        "PATCH",
        f"/api/accounts/{demo.token}/tiers/1",
        body={"package_id": 1},
        headers={"authorization": "Basic d3Jvbmc6d3Jvbmc="},
    )
    assert response.status == 401
    assert response.headers["www-authenticate"] == 'Basic realm="webstore"'


def test_a_405_lists_every_method_of_the_path(demo: DemoStore, invoke: Invoke) -> None:
    response = invoke(operator_handler, "POST", "/queue", body={})
    assert response.status == 405, response.body
    allowed = {m.strip() for m in response.headers["allow"].split(",")}
    assert {"GET", "DELETE"} <= allowed and "POST" not in allowed
    assert response.json()["error_code"] == 405

    response = invoke(storefront_handler, "DELETE", f"/api/accounts/{demo.token}/baskets")
    assert response.status == 405
    assert response.headers["allow"] == "POST"


def test_the_hosted_checkout_answers_an_html_page_on_an_unexpected_error(
    demo: DemoStore, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any) -> Any:
        raise RuntimeError("the table is on fire")

    monkeypatch.setattr(checkout, "checkout_page", broken)
    response = invoke(get_checkout_page.handler, "GET", "/checkout/1-" + "0" * 32)
    assert response.status == 500
    assert response.headers["content-type"].startswith("text/html")
    assert "Something went wrong" in response.body and "fire" not in response.body
    assert response.headers["cache-control"] == "no-store"


@pytest.mark.parametrize("quantity", ["2", True, " 1 ", 1.0])
def test_a_quantity_is_a_json_integer(demo: DemoStore, invoke: Invoke, quantity: Any) -> None:
    created = invoke(create_basket.handler, "POST", f"/api/accounts/{demo.token}/baskets", body={})
    ident = created.json()["data"]["ident"]
    response = invoke(
        add_basket_package.handler,
        "POST",
        f"/api/baskets/{ident}/packages",
        body={"package_id": 1, "quantity": quantity},
    )
    assert response.status == 422, response.body
    assert [f["field"] for f in response.json()["field_details"]] == ["quantity"]


@pytest.mark.parametrize("price", [True, " 1 ", "1e3"])
def test_a_manual_payment_price_is_a_number(demo: DemoStore, invoke: Invoke, price: Any) -> None:
    response = invoke(
        create_payment.handler,
        "POST",
        "/payments",
        headers={"X-Tebex-Secret": demo.server_secret},
        body={"ign": "Steve", "packages": [{"id": 10, "options": {}}], "price": price},
    )
    assert response.status == 422, response.body
    assert response.json()["error_message"].startswith("Invalid request: price")
