"""DELETE {plugin_url}/queue — acknowledge commands by id (JSON `ids`, form `ids[]`, or `?ids[]=` in the
query string); 204."""

from fastapi import Request, Response

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import queue
from webstore.operator.ids import parse_command_ids

ROUTE = Route(
    Interface.OPERATOR, "DELETE", "/queue", "deleteCommands", WRITE, "Delete commands", status_code=204
)


async def endpoint(request: Request, who: ServerDep, svc: ServicesDep) -> Response:
    body, content_type = await request.body(), request.headers.get("content-type", "")
    ids = parse_command_ids(body, content_type, request.url.query)
    queue.delete_commands(svc, who, ids)
    return Response(status_code=204)


handler = lambda_handler(ROUTE, endpoint)
