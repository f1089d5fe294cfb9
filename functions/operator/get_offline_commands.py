"""GET {plugin_url}/queue/offline-commands — commands to run without the player online."""

from fastapi import Depends

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import queue, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services

ROUTE = Route(
    Interface.OPERATOR, "GET", "/queue/offline-commands", "getOfflineCommands", READ, "Offline commands"
)


async def endpoint(
    who: ServerIdentity = Depends(server_identity), svc: Services = Depends(services)
) -> schemas.OfflineCommands:
    return queue.offline_commands(svc, who)


handler = lambda_handler(ROUTE, endpoint)
