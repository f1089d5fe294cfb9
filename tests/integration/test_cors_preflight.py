"""A storefront preflight names the methods the route table has at that path, never `*`: the
local stack's app (infra/local.py, infra/cors.py), in process; API Gateway's one list per API is
the storefront's methods (tests/infra/test_stack.py)."""

from __future__ import annotations

import asyncio

import httpx

from functions.runtime import Interface
from infra.cors import storefront_methods
from infra.local import LocalConfig, interface_app, with_cors

SHOP = "http://localhost:3000"


def preflight(path: str, method: str) -> httpx.Response:
    app = with_cors(interface_app(Interface.STOREFRONT), Interface.STOREFRONT, LocalConfig(cors_origins=SHOP))
    headers = {"Origin": SHOP, "Access-Control-Request-Method": method}

    async def ask() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as http:
            return await http.options(path, headers=headers)

    # A private loop: asyncio.run would leave the main thread without one, and Mangum (the
    # handlers' tests that run after this one in the same process) asks for the current loop.
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(ask())
    finally:
        loop.close()


def allowed(response: httpx.Response) -> set[str]:
    return {m.strip() for m in response.headers["access-control-allow-methods"].split(",")}


def test_remove_a_package_allows_only_its_post() -> None:
    answer = preflight("/api/baskets/1-abc/packages/remove", "POST")
    assert answer.status_code == 200, answer.text
    assert allowed(answer) == {"POST"}
    assert answer.headers["access-control-allow-origin"] == SHOP
    refused = preflight("/api/baskets/1-abc/packages/remove", "PUT")  # the document has none
    assert refused.status_code == 400 and "PUT" not in refused.headers.get("access-control-allow-methods", "")


def test_each_path_names_its_own_methods() -> None:
    assert allowed(preflight("/api/baskets/1-abc/packages/10", "PUT")) == {"PUT"}
    assert allowed(preflight("/api/accounts/1-abc/baskets", "POST")) == {"POST"}
    assert allowed(preflight("/api/accounts/1-abc/baskets/1-abc", "GET")) == {"GET"}


def test_the_whole_interface_list_comes_from_the_route_table() -> None:
    assert "*" not in storefront_methods()
    assert set(storefront_methods()) == {"GET", "PATCH", "POST", "PUT"}
