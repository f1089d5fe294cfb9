"""POST {headless_url}/baskets/{basketIdent}/creator-codes/remove (also without the token)."""

from fastapi import Path

from functions.deps import BASKET_PREFIX, TOKEN_PREFIX, PathTokenDep, ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.storefront import baskets, schemas
from webstore.storefront.retrying import retry_contended

ROUTE = Route(
    Interface.STOREFRONT,
    "POST",
    f"{TOKEN_PREFIX}/baskets/{{basket_ident}}/creator-codes/remove",
    "removeCreatorCode",
    WRITE,
    "Creator code removed successfully",
    aliases=(f"{BASKET_PREFIX}/creator-codes/remove",),
)


async def endpoint(
    token: PathTokenDep,
    svc: ServicesDep,
    basket_ident: str = Path(max_length=80),
    body: baskets.CreatorCodeName | None = None,
) -> schemas.Success:
    """The spec declares no body (CS sends an empty one); NPM sends `{creator_code}`."""
    retry_contended(
        lambda: baskets.remove_creator_code(svc, token, basket_ident, body.creator_code if body else None)
    )
    return schemas.Success(success=True, message="Creator code removed successfully")


handler = lambda_handler(ROUTE, endpoint)
