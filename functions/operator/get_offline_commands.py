"""GET {plugin_url}/queue/offline-commands — commands to run without the player online."""

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import queue, queue_schemas

ROUTE = Route(
    Interface.OPERATOR, "GET", "/queue/offline-commands", "getOfflineCommands", READ, "Offline commands"
)


async def endpoint(who: ServerDep, svc: ServicesDep) -> queue_schemas.OfflineCommands:
    return queue.offline_commands(svc, who)


handler = lambda_handler(ROUTE, endpoint)
