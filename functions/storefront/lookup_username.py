"""GET {headless_url}/ident/gametypes/{game_type}/username/{username} — who a name is in the
store (the platform's username lookup, per store: the headless starter's gift flow)."""

from typing import Annotated

from fastapi import Path

from functions.deps import TOKEN_PREFIX, ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.storefront import schemas
from webstore.storefront.ident_lookup import lookup_username

ROUTE = Route(
    Interface.STOREFRONT,
    "GET",
    f"{TOKEN_PREFIX}/ident/gametypes/{{game_type}}/username/{{username}}",
    "lookupUsername",
    WRITE,
    "Who a username is in the store (the username lookup of headless shops)",
)


async def endpoint(
    token: str,
    svc: ServicesDep,
    game_type: Annotated[str, Path(max_length=32)],
    username: Annotated[str, Path(max_length=64)],
) -> schemas.IdentUser:
    return lookup_username(svc, token, game_type, username)


handler = lambda_handler(ROUTE, endpoint)
