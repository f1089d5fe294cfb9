"""GET /servers — servers."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import server_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/servers",
    "getServers",
    READ,
    "Servers",
    html=True,
    capability=Capability.SERVERS_READ,
)


async def endpoint(svc: ServicesDep, session: StaffDep, done: str = Query("", max_length=200)) -> Response:
    return show(session, lambda: server_pages.servers_page(svc, session), done=done)


handler = lambda_handler(ROUTE, endpoint)
