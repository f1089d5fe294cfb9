"""POST {plugin_url}/events — player join/leave events in a batch (a bare JSON array); 204."""

from fastapi import Request, Response

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import player_events

ROUTE = Route(
    Interface.OPERATOR, "POST", "/events", "createEvents", WRITE, "Report player events", status_code=204
)


async def endpoint(request: Request, who: ServerDep, svc: ServicesDep) -> Response:
    player_events.record_events(svc, who, await request.body())
    return Response(status_code=204)


handler = lambda_handler(ROUTE, endpoint)
