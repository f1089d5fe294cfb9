"""POST /staff/{staff_id}/role — change another member's role (owners)."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, respond
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import staff_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/staff/{staff_id}/role",
    "changeStaffRole",
    WRITE,
    "Change a member's role",
    html=True,
    capability=Capability.STAFF_MANAGE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep, staff_id: str) -> Response:
    return respond(
        session, lambda: staff_pages.submit_role(svc, session, staff_id, form.get("role", ""), svc.now())
    )


handler = lambda_handler(ROUTE, endpoint)
