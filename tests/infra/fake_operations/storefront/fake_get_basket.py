"""Test-only operation: mounted by tests/infra when the route table has no storefront operation yet."""

from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.errors import NotFound
from webstore.keys import basket_key
from webstore.services import get_services

ROUTE = Route(
    interface=Interface.STOREFRONT,
    method="GET",
    path="/api/accounts/{token}/baskets/{basketIdent}",
    operation_id="fakeGetBasket",
    access=READ,
    memory_mb=256,
    timeout_seconds=5,
)


async def endpoint(token: str, basketIdent: str) -> dict[str, object]:
    # One GetItem, like a real read operation (scripts/bench_cold_start.py times this path).
    item = get_services().table.get(basket_key(basketIdent))
    if item is None:
        raise NotFound("Basket not found")
    return {"data": {"ident": basketIdent, "complete": bool(item.get("complete", False))}}


handler = lambda_handler(ROUTE, endpoint)
