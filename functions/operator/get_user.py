"""GET {plugin_url}/user/{user} — look a player up by UUID or username."""

from typing import Annotated

from fastapi import Path

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import players, schemas
from webstore.validation import PathRef

ROUTE = Route(Interface.OPERATOR, "GET", "/user/{user}", "getUser", READ, "Player lookup")


async def endpoint(
    who: ServerDep, svc: ServicesDep, user: Annotated[PathRef, Path(max_length=64)]
) -> schemas.PlayerLookup:
    return players.lookup_player(svc, who.account_id, user)


handler = lambda_handler(ROUTE, endpoint)
