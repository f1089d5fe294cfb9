"""POST /staff/{staff_id}/remove — remove another member (owners): their sessions end at once."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form, forms_for
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import staff_pages
from webstore.admin.flow import with_error
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/staff/{staff_id}/remove",
    "removeStaff",
    WRITE,
    "Remove a staff member",
    html=True,
    capability=Capability.STAFF_MANAGE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep, staff_id: str) -> Response:
    del fields  # checked (CSRF)
    return form(
        session,
        lambda: staff_pages.remove(svc, session, staff_id, svc.now()),
        lambda error: with_error(
            staff_pages.staff_page(svc, session, csrf=forms_for(session, Capability.STAFF_MANAGE)), error
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
