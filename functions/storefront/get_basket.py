"""GET {headless_url}/baskets/{basketIdent} — one basket (1 BatchGetItem: basket + store item)."""

from fastapi import Path

from functions.deps import TOKEN_PREFIX, ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.storefront import basket_read, basket_wire
from webstore.storefront.wire import Envelope

ROUTE = Route(
    Interface.STOREFRONT, "GET", f"{TOKEN_PREFIX}/baskets/{{basket_ident}}", "getBasket", READ, "One basket"
)


async def endpoint(
    svc: ServicesDep,
    token: str,
    basket_ident: str = Path(max_length=80),
) -> Envelope[basket_wire.Basket]:
    basket = basket_read.get_basket(svc, token, basket_ident)
    return Envelope(data=basket_wire.basket_view(basket, svc.settings))


handler = lambda_handler(ROUTE, endpoint)
