"""GET /login — log in by username: the shop's form, or on to the hosted auth page (the look's
"Player log-in"), making the visitor's basket when they have none; back from it, on to `next`."""

from fastapi import Request
from fastapi.responses import Response

from functions.runtime import WRITE, Interface, Route, lambda_handler
from functions.shop_deps import ServicesDep, VisitorDep, client_ip, shop_page
from webstore.shop import forms

ROUTE = Route(Interface.SHOP, "GET", "/login", "getShopLogin", WRITE, "Log in by username", html=True)


async def endpoint(request: Request, svc: ServicesDep, who: VisitorDep, next: str = "/") -> Response:
    """`next`: a path of the shop to go on to once logged in (anything else: the home page)."""
    return shop_page(request, svc, lambda: forms.login_page(svc, who, next, client_ip(request)))


handler = lambda_handler(ROUTE, endpoint)
