"""POST /queue/resend — queue a payment's commands again (form post)."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, respond
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import ops_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/queue/resend",
    "resendCommands",
    WRITE,
    "Queue a payment's commands again (form post)",
    html=True,
    capability=Capability.QUEUE_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep) -> Response:
    return respond(session, lambda: ops_pages.resend_commands(svc, session, form))


handler = lambda_handler(ROUTE, endpoint)
