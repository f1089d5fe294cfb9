"""GET {plugin_url}/queue — players with online commands waiting; throttled to `next_check`."""

from fastapi import Depends

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import queue, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services

ROUTE = Route(Interface.OPERATOR, "GET", "/queue", "getDuePlayers", WRITE, "Due players")


async def endpoint(
    who: ServerIdentity = Depends(server_identity), svc: Services = Depends(services)
) -> schemas.DuePlayers:
    return queue.due_players(svc, who)


handler = lambda_handler(ROUTE, endpoint)
