"""GET /category/{category} — a category's packages; a tiered one shows the player's tier and upgrades."""

from fastapi import Request
from fastapi.responses import Response

from functions.runtime import READ, Interface, Route, lambda_handler
from functions.shop_deps import ServicesDep, shared_page
from webstore.shop import pages

ROUTE = Route(
    Interface.SHOP,
    "GET",
    "/category/{category}",
    "getShopCategory",
    READ,
    "A category's packages; a tiered category shows the player's tier and upgrade prices",
    html=True,
)


async def endpoint(request: Request, category: str, svc: ServicesDep) -> Response:
    return shared_page(request, svc, lambda who: pages.category(svc, who, category))


handler = lambda_handler(ROUTE, endpoint)
