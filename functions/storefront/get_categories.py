"""GET {headless_url}/categories — categories, optionally with packages (and a basket's dynamic ones).

With `usernameId` (Basic auth: webstore identifier + checkout API key), each tiered category
carries the player's `active_tier` and its other packages a `prorate_price` (getUserTieredCategories).
"""

from fastapi import Query

from functions.deps import TOKEN_PREFIX, BasicAuthDep, ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.storefront import catalog, schemas

# Player ids up to 64 bits: the headless spec's own example is a Steam64 id.
USERNAME_ID_MAX = 2**64 - 1

ROUTE = Route(
    Interface.STOREFRONT, "GET", f"{TOKEN_PREFIX}/categories", "getCategories", READ, "All categories"
)


async def endpoint(
    token: str,
    svc: ServicesDep,
    credentials: BasicAuthDep,
    include_packages: bool = Query(False, alias="includePackages"),
    basket_ident: str | None = Query(None, alias="basketIdent", max_length=80),
    username_id: int | None = Query(None, alias="usernameId", ge=1, le=USERNAME_ID_MAX),
) -> schemas.Envelope[list[schemas.Category]]:
    return schemas.Envelope(
        data=catalog.get_categories(
            svc,
            token,
            include_packages=include_packages,
            basket_ident=basket_ident,
            username_id=username_id,
            credentials=credentials if username_id is not None else None,
        )
    )


handler = lambda_handler(ROUTE, endpoint)
