"""GET {plugin_url}/queue/online-commands/{player_id} — one due player's online commands (each
marked fetched as it is handed out: a write)."""

from fastapi import Path

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import queue, queue_schemas

ROUTE = Route(
    Interface.OPERATOR,
    "GET",
    "/queue/online-commands/{player_id}",
    "getOnlineCommands",
    WRITE,
    "A player's online commands",
)


async def endpoint(
    who: ServerDep, svc: ServicesDep, player_id: int = Path(ge=1, le=2_147_483_647)
) -> queue_schemas.OnlineCommands:
    return queue.online_commands(svc, who, player_id)


handler = lambda_handler(ROUTE, endpoint)
