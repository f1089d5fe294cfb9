"""GET /page/{slug} — one of the store's custom pages."""

from fastapi import Request
from fastapi.responses import Response

from functions.runtime import READ, Interface, Route, lambda_handler
from functions.shop_deps import ServicesDep, shared_page
from webstore.shop import pages

ROUTE = Route(
    Interface.SHOP, "GET", "/page/{slug}", "getShopPage", READ, "One of the store's custom pages", html=True
)


async def endpoint(request: Request, slug: str, svc: ServicesDep) -> Response:
    return shared_page(request, svc, lambda who: pages.custom_page(svc, who, slug))


handler = lambda_handler(ROUTE, endpoint)
