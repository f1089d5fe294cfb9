"""GET /staff — the store's staff; owners invite, change roles and remove here."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep
from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import staff_pages

ROUTE = Route(Interface.ADMIN, "GET", "/staff", "getStaff", READ, "The staff page", html=True)


async def endpoint(svc: ServicesDep, session: StaffDep, done: str = Query("", max_length=40)) -> Response:
    return render(lambda: staff_pages.staff_page(svc, session, done=done))


handler = lambda_handler(ROUTE, endpoint)
