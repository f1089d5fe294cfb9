"""GET / — the shop's home: the hero with the sale banner, the featured package, the categories."""

from fastapi import Request
from fastapi.responses import Response

from functions.runtime import READ, Interface, Route, lambda_handler
from functions.shop_deps import ServicesDep, VisitorDep, shop_page
from webstore.shop import pages

ROUTE = Route(
    Interface.SHOP,
    "GET",
    "/",
    "getShopHome",
    READ,
    "The shop's home: the hero with the sale banner, the featured package, the categories",
    html=True,
)


async def endpoint(request: Request, svc: ServicesDep, who: VisitorDep) -> Response:
    return shop_page(request, svc, lambda: pages.home(svc, who))


handler = lambda_handler(ROUTE, endpoint)
