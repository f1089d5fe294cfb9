"""GET /servers — servers."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep
from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import ops_pages

ROUTE = Route(Interface.ADMIN, "GET", "/servers", "getServers", READ, "Servers", html=True)


async def endpoint(svc: ServicesDep, session: StaffDep, done: str = Query("", max_length=200)) -> Response:
    return render(lambda: ops_pages.servers_page(svc, session, done))


handler = lambda_handler(ROUTE, endpoint)
