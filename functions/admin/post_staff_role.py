"""POST /staff/{staff_id}/role — change another member's role (owners)."""

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
    "/staff/{staff_id}/role",
    "changeStaffRole",
    WRITE,
    "Change a member's role",
    html=True,
    capability=Capability.STAFF_MANAGE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep, staff_id: str) -> Response:
    return form(
        session,
        lambda: staff_pages.change_role(svc, session, staff_id, fields.get("role", ""), svc.now()),
        lambda error: with_error(
            staff_pages.staff_page(svc, session, csrf=forms_for(session, Capability.STAFF_MANAGE)), error
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
