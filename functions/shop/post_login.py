"""POST /login — log in by username: the basket becomes the player's (Post/Redirect/Get; CSRF-checked)."""

from fastapi import Request
from fastapi.responses import Response

from functions.runtime import WRITE, Interface, Route, lambda_handler
from functions.shop_deps import FormDep, ServicesDep, client_ip, shop_page, visitor
from webstore.shop import forms

ROUTE = Route(
    Interface.SHOP,
    "POST",
    "/login",
    "submitShopLogin",
    WRITE,
    "Log in by username: the basket becomes the player's",
    html=True,
)


async def endpoint(request: Request, fields: FormDep, svc: ServicesDep) -> Response:
    return shop_page(request, svc, lambda: forms.log_in(svc, visitor(request), fields, client_ip(request)))


handler = lambda_handler(ROUTE, endpoint)
