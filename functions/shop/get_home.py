"""GET / — the shop's home: the hero with the sale banner, the featured package, the categories."""

from fastapi import Request
from fastapi.responses import Response

from functions.runtime import READ, Interface, Route, lambda_handler
from functions.shop_deps import ServicesDep, shared_page
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


async def endpoint(request: Request, svc: ServicesDep) -> Response:
    return shared_page(request, svc, lambda who: pages.home(svc, who))


handler = lambda_handler(ROUTE, endpoint)
