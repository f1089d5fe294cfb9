"""GET /login — log in by username."""

from fastapi import Request
from fastapi.responses import Response

from functions.runtime import READ, Interface, Route, lambda_handler
from functions.shop_deps import ServicesDep, VisitorDep, shop_page
from webstore.shop import pages
from webstore.shop.forms import safe_next

ROUTE = Route(Interface.SHOP, "GET", "/login", "getShopLogin", READ, "Log in by username", html=True)


async def endpoint(request: Request, svc: ServicesDep, who: VisitorDep, next: str = "/") -> Response:
    """`next`: a path of the shop to go on to once logged in (anything else: the home page)."""
    return shop_page(request, svc, lambda: pages.login(svc, who, next_path=safe_next(next, "/")))


handler = lambda_handler(ROUTE, endpoint)
