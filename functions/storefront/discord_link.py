"""GET /discord/link — a player links their Discord account (docs/discord.md), one function for
both legs: `?store=` (the `/link` command's link) opens a basket and sends the player to the
hosted auth page with "Also link my Discord account" ticked; `?basket=` (the receipt's or the
checkout page's "Link Discord") sends them to Discord's consent page with a
one-use state and a PKCE challenge; Discord sends them back with `?code=&state=` (or `?error=`):
the state taken once, the code exchanged with the verifier, the account linked, the roles applied."""

from fastapi import Query, Request
from fastapi.responses import Response

from functions.declarations import Access
from functions.deps import ServicesDep, client_ip
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
    request: Request,
    svc: ServicesDep,
    store: str = Query("", max_length=80),
    basket: str = Query("", max_length=80),
    code: str = Query("", max_length=200),
    state: str = Query("", max_length=80),
    error: str = Query("", max_length=100),
) -> Response:
    if store:  # the `/link` command's link: log in first (the hosted auth page), then Discord
        return render(lambda: linking.start_for_store(svc, store, client_ip(request)), pages.policy())
    if basket:
        return render(lambda: linking.start(svc, basket, svc.now()), pages.policy())
    return render(lambda: linking.finish(svc, code, state, error, svc.now()), pages.policy())


handler = lambda_handler(ROUTE, endpoint)
