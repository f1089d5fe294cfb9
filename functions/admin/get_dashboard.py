"""GET / — the panel's home: the dashboard (`?days=7|30|90|365`)."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep
from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import dashboard_page

ROUTE = Route(Interface.ADMIN, "GET", "/", "getDashboard", READ, "The dashboard", html=True)


async def endpoint(
    svc: ServicesDep,
    session: StaffDep,
    days: str | None = Query(None, max_length=8),
    done: str = Query("", max_length=200),
) -> Response:
    return render(lambda: dashboard_page.show(svc, session, days, done))


handler = lambda_handler(ROUTE, endpoint)
