"""POST /discord/interactions/{token} — the store's Discord interactions endpoint (docs/discord.md):
the Ed25519 signature checked with the application's public key (a bad one is 401), PING answered
PONG, `/link` answered at once with an ephemeral message carrying the link."""

from typing import Annotated, Any

from fastapi import Header, Path, Request

from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.discord import interactions

ROUTE = Route(
    Interface.STOREFRONT,
    "POST",
    "/discord/interactions/{token}",
    "receiveDiscordInteraction",
    READ,
    "Discord interactions of a store (the `/link` command), signed by Discord",
)


async def endpoint(
    token: Annotated[str, Path(max_length=80)],
    request: Request,
    svc: ServicesDep,
    x_signature_ed25519: Annotated[str, Header(max_length=200)] = "",
    x_signature_timestamp: Annotated[str, Header(max_length=40)] = "",
) -> dict[str, Any]:
    body = await request.body()
    return interactions.receive(svc, token, x_signature_ed25519, x_signature_timestamp, body)


handler = lambda_handler(ROUTE, endpoint)
