"""GET /staff — the store's staff; owners invite, change roles and remove here."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, forms_for, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import staff_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/staff",
    "getStaff",
    READ,
    "The staff page",
    html=True,
    capability=Capability.STAFF_READ,
)


async def endpoint(svc: ServicesDep, session: StaffDep, done: str = Query("", max_length=40)) -> Response:
    forms = forms_for(session, Capability.STAFF_MANAGE)
    return show(
        session, lambda: staff_pages.staff_page(svc, session, csrf=forms), done=staff_pages.DONE.get(done, "")
    )


handler = lambda_handler(ROUTE, endpoint)
