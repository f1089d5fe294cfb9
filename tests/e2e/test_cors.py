"""Issue 15 item 6: a headless browser shop on http://localhost:3000 (one of the demo store's
return hosts; its own site is the hosted shop) can call the local storefront: CORS answered as
API Gateway answers it in AWS, from the same policy (infra/cors.py; tests/infra/test_stack.py
checks the synthesized side)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from infra.cors import ALLOW_HEADERS, MAX_AGE_SECONDS, cdk_json_origins, storefront_policy
from tests.support.demo import demo_catalog_data

pytestmark = pytest.mark.e2e

SHOP = "http://localhost:3000"


def test_the_demo_shop_origin_is_allowed_by_the_configured_policy() -> None:
    assert "localhost" in demo_catalog_data()["store"]["allowed_return_hosts"]
    origins = storefront_policy(cdk_json_origins()).allow_origins
    assert "*" in origins or SHOP in origins


def test_preflight_from_the_shop(local_stack: dict[str, Any]) -> None:
    with httpx.Client(timeout=10) as http:
        answer = http.options(
            f"{local_stack['headless_url']}/baskets",
            headers={
                "Origin": SHOP,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization, content-type",
            },
        )
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] in ("*", SHOP)
    assert "POST" in answer.headers["access-control-allow-methods"]
    allowed = {h.strip().lower() for h in answer.headers["access-control-allow-headers"].split(",")}
    assert {h.lower() for h in ALLOW_HEADERS} <= allowed
    assert answer.headers["access-control-max-age"] == str(MAX_AGE_SECONDS)


def test_simple_request_from_the_shop(local_stack: dict[str, Any]) -> None:
    with httpx.Client(timeout=10) as http:
        answer = http.get(local_stack["headless_url"], headers={"Origin": SHOP})
        missing = http.get(local_stack["headless_url"] + "/packages/999999", headers={"Origin": SHOP})
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] in ("*", SHOP)
    assert missing.status_code == 404  # errors carry the header too: the shop can read them
    assert missing.headers["access-control-allow-origin"] in ("*", SHOP)


def test_the_operator_interface_has_no_cors(local_stack: dict[str, Any]) -> None:
    with httpx.Client(timeout=10) as http:
        answer = http.get(f"{local_stack['plugin_url']}/information", headers={"Origin": SHOP})
    assert "access-control-allow-origin" not in answer.headers


def test_an_origin_list_allows_only_its_origins() -> None:
    """`serve --cors-origins` (or cdk.json's corsOrigins) naming origins: others get no header."""
    from functions.runtime import Interface
    from infra.local import LocalConfig, interface_app, with_cors

    app = with_cors(interface_app(Interface.STOREFRONT), Interface.STOREFRONT, LocalConfig(cors_origins=SHOP))
    preflight = {"Access-Control-Request-Method": "GET"}

    async def ask(origin: str) -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as http:
            return await http.options("/api/accounts/x", headers={"Origin": origin, **preflight})

    # A private loop: asyncio.run would leave the main thread without one, and Mangum (the
    # handlers' tests that run after this one in the same process) asks for the current loop.
    loop = asyncio.new_event_loop()
    try:
        allowed = loop.run_until_complete(ask(SHOP))
        refused = loop.run_until_complete(ask("https://evil.example"))
    finally:
        loop.close()
    assert allowed.headers["access-control-allow-origin"] == SHOP
    assert "access-control-allow-origin" not in refused.headers
