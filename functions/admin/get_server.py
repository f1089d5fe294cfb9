"""GET /servers/{server_id} — a server and its waiting commands."""

from fastapi import Path, Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import server_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/servers/{server_id}",
    "getServer",
    READ,
    "A server and its waiting commands",
    html=True,
    capability=Capability.QUEUE_READ,
)


async def endpoint(
    svc: ServicesDep,
    session: StaffDep,
    server_id: int = Path(ge=1, le=2_147_483_647),
    cursor: str = Query("", max_length=120),
    done: str = Query("", max_length=200),
) -> Response:
    return show(session, lambda: server_pages.server_page(svc, session, server_id, cursor), done=done)


handler = lambda_handler(ROUTE, endpoint)
