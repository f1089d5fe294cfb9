"""GET {plugin_url}/queue/offline-commands — commands to run without the player online (each
marked fetched as it is handed out: a write)."""

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import queue, queue_schemas

ROUTE = Route(
    Interface.OPERATOR, "GET", "/queue/offline-commands", "getOfflineCommands", WRITE, "Offline commands"
)


async def endpoint(who: ServerDep, svc: ServicesDep) -> queue_schemas.OfflineCommands:
    return queue.offline_commands(svc, who)


handler = lambda_handler(ROUTE, endpoint)
