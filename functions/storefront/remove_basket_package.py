"""POST <host>/api/baskets/{basketIdent}/packages/remove (COMPAT; also under the token)."""

from fastapi import Path

from functions.deps import BASKET_PREFIX, TOKEN_PREFIX, PathTokenDep, ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.storefront import basket_wire, baskets
from webstore.storefront.retrying import retry_contended
from webstore.storefront.wire import Envelope

ROUTE = Route(
    Interface.STOREFRONT,
    "POST",
    f"{BASKET_PREFIX}/packages/remove",
    "removeBasketPackage",
    WRITE,
    "Remove a package from a basket",
    aliases=(f"{TOKEN_PREFIX}/baskets/{{basket_ident}}/packages/remove",),
)


async def endpoint(
    token: PathTokenDep,
    svc: ServicesDep,
    body: baskets.RemovePackage,
    basket_ident: str = Path(max_length=80),
) -> Envelope[basket_wire.Basket]:
    basket = retry_contended(lambda: baskets.remove_package(svc, token, basket_ident, body))
    return Envelope(data=basket_wire.basket_view(basket, svc.settings))


handler = lambda_handler(ROUTE, endpoint)
