"""Test-only operation with an alias path and write + publish access (see fake_get_basket)."""

from functions.runtime import WRITE_AND_PUBLISH, Interface, Route, lambda_handler

ROUTE = Route(
    interface=Interface.STOREFRONT,
    method="POST",
    path="/api/accounts/{token}/baskets/{basketIdent}/packages",
    aliases=("/api/baskets/{basketIdent}/packages",),
    operation_id="fakeAddPackage",
    access=WRITE_AND_PUBLISH,
    memory_mb=1024,
    timeout_seconds=15,
)


async def endpoint(basketIdent: str) -> dict[str, str]:
    return {"ident": basketIdent}


handler = lambda_handler(ROUTE, endpoint)
