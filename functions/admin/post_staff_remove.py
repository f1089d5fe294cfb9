"""POST /staff/{staff_id}/remove — remove another member (owners): their sessions end at once."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, respond
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import staff_pages
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


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep, staff_id: str) -> Response:
    del form  # checked (CSRF)
    return respond(session, lambda: staff_pages.submit_remove(svc, session, staff_id, svc.now()))


handler = lambda_handler(ROUTE, endpoint)
