"""GET {headless_url}/packages/{id-or-slug} — one package (by id, slug or ident)."""

from typing import Annotated

from fastapi import Path, Query

from functions.deps import TOKEN_PREFIX, ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.storefront import catalog, schemas
from webstore.validation import PathRef

ROUTE = Route(
    Interface.STOREFRONT, "GET", f"{TOKEN_PREFIX}/packages/{{package}}", "getPackage", READ, "One package"
)


async def endpoint(
    token: str,
    svc: ServicesDep,
    package: Annotated[PathRef, Path(max_length=120)],
    basket_ident: str | None = Query(None, alias="basketIdent", max_length=80),
    ip_address: str | None = Query(None, alias="ipAddress", max_length=64),
) -> schemas.Envelope[schemas.Package]:
    return schemas.Envelope(data=catalog.get_package(svc, token, package, basket_ident))


handler = lambda_handler(ROUTE, endpoint)
