"""GET /discord/callback — Discord sends the player back: the state taken once, the code exchanged
with the PKCE verifier, the account linked and the roles applied (docs/discord.md)."""

from fastapi import Query
from fastapi.responses import Response

from functions.declarations import Access
from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import Interface, Route, lambda_handler
from webstore.checkout import pages
from webstore.discord import linking

ROUTE = Route(
    Interface.STOREFRONT,
    "GET",
    "/discord/callback",
    "finishDiscordLink",
    # Opens the bot token and client secret, seals the player's access token: the stage key.
    frozenset({Access.TABLE_READ, Access.TABLE_WRITE, Access.WEBHOOK_KEY}),
    "Discord's OAuth2 callback: the player's account linked",
    html=True,
    timeout_seconds=20,
)


async def endpoint(
    svc: ServicesDep,
    code: str = Query("", max_length=200),
    state: str = Query("", max_length=80),
    error: str = Query("", max_length=100),
) -> Response:
    return render(lambda: linking.finish(svc, code, state, error, svc.now()), pages.policy())


handler = lambda_handler(ROUTE, endpoint)
