"""POST /staff — invite a member with a role: its password is shown once, in this answer."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, respond
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import staff_pages
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


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep) -> Response:
    return respond(
        session,
        lambda: staff_pages.submit_invite(
            svc, session, form.get("email", ""), form.get("role", ""), svc.now()
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
