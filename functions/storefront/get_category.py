"""GET {headless_url}/categories/{id-or-slug} — one category, optionally with its packages."""

from typing import Annotated

from fastapi import Path, Query

from functions.deps import TOKEN_PREFIX, ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.storefront import catalog, schemas
from webstore.validation import PathRef

ROUTE = Route(
    Interface.STOREFRONT,
    "GET",
    f"{TOKEN_PREFIX}/categories/{{category}}",
    "getCategory",
    READ,
    "One category",
)


async def endpoint(
    token: str,
    svc: ServicesDep,
    category: Annotated[PathRef, Path(max_length=120)],
    include_packages: bool = Query(False, alias="includePackages"),
    basket_ident: str | None = Query(None, alias="basketIdent", max_length=80),
) -> schemas.Envelope[schemas.Category]:
    return schemas.Envelope(
        data=catalog.get_category(
            svc, token, category, include_packages=include_packages, basket_ident=basket_ident
        )
    )


handler = lambda_handler(ROUTE, endpoint)
