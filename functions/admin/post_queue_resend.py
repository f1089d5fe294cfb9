"""POST /queue/resend — queue a payment's commands again (form post)."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import queue_pages
from webstore.admin.flow import with_error
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


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    return form(
        session,
        lambda: queue_pages.resend_commands(svc, session, fields),
        lambda error: with_error(queue_pages.queue_page(svc, session, "", None), error),
    )


handler = lambda_handler(ROUTE, endpoint)
