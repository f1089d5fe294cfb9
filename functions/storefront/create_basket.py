"""POST {headless_url}/baskets — a new basket (SPEC: 422 when the store ID is invalid)."""

from fastapi import Query, Request

from functions.deps import TOKEN_PREFIX, BasicAuthDep, ServicesDep, client_ip
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.storefront import basket_wire, baskets
from webstore.storefront.wire import Envelope

ROUTE = Route(
    Interface.STOREFRONT, "POST", f"{TOKEN_PREFIX}/baskets", "createBasket", WRITE, "Create a basket"
)


async def endpoint(
    svc: ServicesDep,
    token: str,
    request: Request,
    credentials: BasicAuthDep,
    body: baskets.NewBasket | None = None,
    ip_address: str | None = Query(None, max_length=64),
) -> Envelope[basket_wire.Basket]:
    ip = ip_address if ip_address is not None else client_ip(request)
    basket = baskets.create_basket(svc, token, body or baskets.NewBasket(), ip, credentials)
    return Envelope(data=basket_wire.basket_view(basket, svc.settings))


handler = lambda_handler(ROUTE, endpoint)
