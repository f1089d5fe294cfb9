"""POST /login/steam — a Steam store's log-in: the visitor's basket (or a new one) is signed in
through Steam on the hosted sign-in, which sends the player back to GET /login/steam (CSRF-checked)."""

from fastapi import Request
from fastapi.responses import Response

from functions.runtime import WRITE, Interface, Route, lambda_handler
from functions.shop_deps import FormDep, ServicesDep, client_ip, shop_page, visitor
from webstore.shop import forms

ROUTE = Route(
    Interface.SHOP,
    "POST",
    "/login/steam",
    "submitShopSteamLogin",
    WRITE,
    "Sign in through Steam: on to the hosted Steam sign-in with the visitor's basket",
    html=True,
)


async def endpoint(request: Request, fields: FormDep, svc: ServicesDep) -> Response:
    return shop_page(
        request, svc, lambda: forms.steam_log_in(svc, visitor(request), fields, client_ip(request))
    )


handler = lambda_handler(ROUTE, endpoint)
