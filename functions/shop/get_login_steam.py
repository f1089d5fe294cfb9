"""GET /login/steam?next=&success=true — back from the hosted Steam sign-in: the visitor's basket
is the player's; on to `next` (a basket still without a player: the log-in page says so)."""

from fastapi import Request
from fastapi.responses import Response

from functions.runtime import READ, Interface, Route, lambda_handler
from functions.shop_deps import ServicesDep, VisitorDep, shop_page
from webstore.shop import forms

ROUTE = Route(
    Interface.SHOP,
    "GET",
    "/login/steam",
    "getShopSteamLogin",
    READ,
    "Back from the Steam sign-in: on to where the player was going",
    html=True,
)


async def endpoint(request: Request, svc: ServicesDep, who: VisitorDep, next: str = "/") -> Response:
    return shop_page(request, svc, lambda: forms.steam_logged_in(svc, who, next))


handler = lambda_handler(ROUTE, endpoint)
