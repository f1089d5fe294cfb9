"""GET {plugin_url}/user/{user} — look a player up by UUID or username."""

from typing import Annotated

from fastapi import Depends, Path

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import admin, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services
from webstore.validation import PathRef

ROUTE = Route(Interface.OPERATOR, "GET", "/user/{user}", "getUser", READ, "Player lookup")


async def endpoint(
    user: Annotated[PathRef, Path(max_length=64)],
    who: ServerIdentity = Depends(server_identity),
    svc: Services = Depends(services),
) -> schemas.PlayerLookup:
    return admin.lookup_player(svc, who.account_id, user)


handler = lambda_handler(ROUTE, endpoint)
