"""PUT <host>/api/baskets/{basketIdent}/packages/{package_id} (COMPAT) — set a line's quantity."""

from typing import Annotated

from fastapi import Path

from functions.deps import BASKET_PREFIX, TOKEN_PREFIX, PathTokenDep, ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.storefront import basket_wire, baskets
from webstore.storefront.retrying import retry_contended
from webstore.storefront.wire import Envelope
from webstore.validation import PathRef

ROUTE = Route(
    Interface.STOREFRONT,
    "PUT",
    f"{BASKET_PREFIX}/packages/{{package_id}}",
    "updateBasketPackageQuantity",
    WRITE,
    "Set the quantity of a package in a basket (0 removes it)",
    aliases=(f"{TOKEN_PREFIX}/baskets/{{basket_ident}}/packages/{{package_id}}",),
)


async def endpoint(
    token: PathTokenDep,
    svc: ServicesDep,
    body: baskets.PackageQuantity,
    package_id: Annotated[PathRef, Path(max_length=64)],
    basket_ident: str = Path(max_length=80),
) -> Envelope[basket_wire.Basket]:
    basket = retry_contended(lambda: baskets.update_quantity(svc, token, basket_ident, package_id, body))
    return Envelope(data=basket_wire.basket_view(basket, svc.settings))


handler = lambda_handler(ROUTE, endpoint)
