"""GET {headless_url}/baskets/{basketIdent}/auth?returnUrl= — the basket's auth link(s), a bare array."""

from fastapi import Path, Query

from functions.deps import TOKEN_PREFIX, ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.storefront import basket_auth, schemas
from webstore.storefront.return_urls import MAX_RETURN_URL

ROUTE = Route(
    Interface.STOREFRONT,
    "GET",
    f"{TOKEN_PREFIX}/baskets/{{basket_ident}}/auth",
    "getBasketAuthUrl",
    READ,
    "Where to send the player to log in to a basket",
)


async def endpoint(
    token: str,
    svc: ServicesDep,
    basket_ident: str = Path(max_length=80),
    return_url: str | None = Query(None, alias="returnUrl", max_length=MAX_RETURN_URL + 1),
) -> list[schemas.AuthLink]:
    return basket_auth.auth_links(svc, token, basket_ident, return_url)


handler = lambda_handler(ROUTE, endpoint)
