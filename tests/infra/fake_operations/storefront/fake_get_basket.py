"""Test-only operation: mounted by tests/infra when the route table has no storefront operation yet."""

from functions.runtime import READ, Interface, Route, lambda_handler

ROUTE = Route(
    interface=Interface.STOREFRONT,
    method="GET",
    path="/api/accounts/{token}/baskets/{basketIdent}",
    operation_id="fakeGetBasket",
    access=READ,
    memory_mb=256,
    timeout_seconds=5,
)


async def endpoint(token: str, basketIdent: str) -> dict[str, str]:
    return {"token": token, "ident": basketIdent}


handler = lambda_handler(ROUTE, endpoint)
