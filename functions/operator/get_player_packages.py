"""GET {plugin_url}/player/{id}/packages[?package=N] — a player's standing purchases (an array)."""

from typing import Annotated

from fastapi import Path, Query

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import player_packages, schemas
from webstore.validation import PathRef

ROUTE = Route(
    Interface.OPERATOR,
    "GET",
    "/player/{player}/packages",
    "getPlayerPackages",
    READ,
    "What a player bought",
)


async def endpoint(
    who: ServerDep,
    svc: ServicesDep,
    player: Annotated[PathRef, Path(max_length=64)],
    package: str | None = Query(None, max_length=12),
) -> list[schemas.ActivePackage]:
    return player_packages.active_packages(svc, who.account_id, player, package)


handler = lambda_handler(ROUTE, endpoint)
