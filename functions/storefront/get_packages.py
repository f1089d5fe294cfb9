"""GET {headless_url}/packages — every package for sale (and the basket's dynamic ones)."""

from fastapi import Query

from functions.deps import TOKEN_PREFIX, ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.storefront import catalog, schemas

ROUTE = Route(Interface.STOREFRONT, "GET", f"{TOKEN_PREFIX}/packages", "getPackages", READ, "All packages")


async def endpoint(
    token: str,
    svc: ServicesDep,
    basket_ident: str | None = Query(None, alias="basketIdent", max_length=80),
    ip_address: str | None = Query(None, alias="ipAddress", max_length=64),
) -> schemas.Envelope[list[schemas.Package]]:
    return schemas.Envelope(data=catalog.list_packages(svc, token, basket_ident))


handler = lambda_handler(ROUTE, endpoint)
