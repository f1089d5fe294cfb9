"""GET /basket — the basket: quantities, codes, totals as the checkout computes them."""

from fastapi import Request
from fastapi.responses import Response

from functions.runtime import READ, Interface, Route, lambda_handler
from functions.shop_deps import ServicesDep, VisitorDep, shop_page
from webstore.shop import pages

ROUTE = Route(
    Interface.SHOP,
    "GET",
    "/basket",
    "getShopBasket",
    READ,
    "The basket: quantities, codes, totals as the checkout computes them",
    html=True,
)


async def endpoint(request: Request, svc: ServicesDep, who: VisitorDep) -> Response:
    return shop_page(request, svc, lambda: pages.basket(svc, who))


handler = lambda_handler(ROUTE, endpoint)
