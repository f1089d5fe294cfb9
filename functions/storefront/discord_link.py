"""GET /discord/link — a player links their Discord account (docs/discord.md), one function for
both legs: `?basket=` (the receipt's "Link Discord") sends them to Discord's consent page with a
one-use state and a PKCE challenge; Discord sends them back with `?code=&state=` (or `?error=`):
the state taken once, the code exchanged with the verifier, the account linked, the roles applied."""

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
    "/discord/link",
    "linkDiscord",
    # Keeps the state; opens the bot token and client secret, seals the player's access token:
    # the stage key.
    frozenset({Access.TABLE_READ, Access.TABLE_WRITE, Access.WEBHOOK_KEY}),
    "Link the player's Discord account (OAuth2: to Discord's consent page and back)",
    html=True,
    timeout_seconds=20,
)


async def endpoint(
    svc: ServicesDep,
    basket: str = Query("", max_length=80),
    code: str = Query("", max_length=200),
    state: str = Query("", max_length=80),
    error: str = Query("", max_length=100),
) -> Response:
    if basket:
        return render(lambda: linking.start(svc, basket, svc.now()), pages.policy())
    return render(lambda: linking.finish(svc, code, state, error, svc.now()), pages.policy())


handler = lambda_handler(ROUTE, endpoint)
