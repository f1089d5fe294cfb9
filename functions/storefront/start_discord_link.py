"""GET /checkout/{basket_ident}/discord — "Link Discord" from the receipt: to Discord's consent
page (OAuth2 with state and PKCE, docs/discord.md)."""

from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.checkout import pages
from webstore.discord import linking

ROUTE = Route(
    Interface.STOREFRONT,
    "GET",
    "/checkout/{basket_ident}/discord",
    "startDiscordLink",
    WRITE,
    "Link the player's Discord account (to Discord's consent page)",
    html=True,
)


async def endpoint(basket_ident: str, svc: ServicesDep) -> Response:
    return render(lambda: linking.start(svc, basket_ident, svc.now()), pages.policy())


handler = lambda_handler(ROUTE, endpoint)
