"""POST /staff — invite a member with a role: its password is shown once, in this answer."""

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
    "/staff",
    "inviteStaff",
    WRITE,
    "Invite a staff member (form post)",
    html=True,
    capability=Capability.STAFF_MANAGE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    email = fields.get("email", "")
    return form(
        session,
        lambda: staff_pages.invite(svc, session, email, fields.get("role", ""), svc.now()),
        lambda error: with_error(
            staff_pages.staff_page(
                svc, session, csrf=forms_for(session, Capability.STAFF_MANAGE), email=email
            ),
            error,
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
