"""GET /package/{package} — a package: description, image, price (sale, billing period), its form."""

from fastapi import Request
from fastapi.responses import Response

from functions.runtime import READ, Interface, Route, lambda_handler
from functions.shop_deps import ServicesDep, VisitorDep, shop_page
from webstore.shop import pages

ROUTE = Route(
    Interface.SHOP,
    "GET",
    "/package/{package}",
    "getShopPackage",
    READ,
    "A package: description, image, price (sale, billing period), its form",
    html=True,
)


async def endpoint(request: Request, package: str, svc: ServicesDep, who: VisitorDep) -> Response:
    return shop_page(request, svc, lambda: pages.package(svc, who, package))


handler = lambda_handler(ROUTE, endpoint)
