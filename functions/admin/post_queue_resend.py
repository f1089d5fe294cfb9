"""POST /queue/resend — queue a payment's commands again (form post)."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep
from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import ops_pages

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/queue/resend",
    "resendCommands",
    WRITE,
    "Queue a payment's commands again (form post)",
    html=True,
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep) -> Response:
    return render(lambda: ops_pages.resend_commands(svc, session, form))


handler = lambda_handler(ROUTE, endpoint)
