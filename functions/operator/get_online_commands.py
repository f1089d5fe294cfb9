"""GET {plugin_url}/queue/online-commands/{player_id} — one due player's online commands."""

from fastapi import Depends, Path

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import queue, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services

ROUTE = Route(
    Interface.OPERATOR,
    "GET",
    "/queue/online-commands/{player_id}",
    "getOnlineCommands",
    READ,
    "A player's online commands",
)


async def endpoint(
    player_id: int = Path(ge=1, le=2_147_483_647),
    who: ServerIdentity = Depends(server_identity),
    svc: Services = Depends(services),
) -> schemas.OnlineCommands:
    return queue.online_commands(svc, who, player_id)


handler = lambda_handler(ROUTE, endpoint)
