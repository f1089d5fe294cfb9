"""GET / — the panel's home: the dashboard (`?days=7|30|90|365`)."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, respond
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import dashboard_page
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/",
    "getDashboard",
    READ,
    "The dashboard",
    html=True,
    capability=Capability.DASHBOARD_READ,
)


async def endpoint(
    svc: ServicesDep,
    session: StaffDep,
    days: str | None = Query(None, max_length=8),
    done: str = Query("", max_length=200),
) -> Response:
    return respond(session, lambda: dashboard_page.show(svc, session, days, done))


handler = lambda_handler(ROUTE, endpoint)
