"""GET {plugin_url}/queue — players with online commands waiting; throttled to `next_check`."""

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import queue, queue_schemas

ROUTE = Route(Interface.OPERATOR, "GET", "/queue", "getDuePlayers", WRITE, "Due players")


async def endpoint(who: ServerDep, svc: ServicesDep) -> queue_schemas.DuePlayers:
    return queue.due_players(svc, who)


handler = lambda_handler(ROUTE, endpoint)
