"""GET {headless_url}/categories — categories, optionally with packages (and a basket's dynamic ones)."""

from fastapi import Depends, Query

from functions.deps import TOKEN_PREFIX, services
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.services import Services
from webstore.storefront import catalog, schemas

ROUTE = Route(
    Interface.STOREFRONT, "GET", f"{TOKEN_PREFIX}/categories", "getCategories", READ, "All categories"
)


async def endpoint(
    token: str,
    include_packages: bool = Query(False, alias="includePackages"),
    basket_ident: str | None = Query(None, alias="basketIdent", max_length=80),
    svc: Services = Depends(services),
) -> schemas.Envelope[list[schemas.Category]]:
    return schemas.Envelope(
        data=catalog.get_categories(svc, token, include_packages=include_packages, basket_ident=basket_ident)
    )


handler = lambda_handler(ROUTE, endpoint)
