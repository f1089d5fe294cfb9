"""POST /servers/{server_id}/commands/delete — delete waiting commands (form post)."""

from fastapi import Path
from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import server_pages
from webstore.admin.flow import with_error
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/servers/{server_id}/commands/delete",
    "deleteQueuedCommands",
    WRITE,
    "Delete waiting commands (form post)",
    html=True,
    capability=Capability.QUEUE_WRITE,
)


async def endpoint(
    svc: ServicesDep, session: StaffDep, fields: FormDep, server_id: int = Path(ge=1, le=2_147_483_647)
) -> Response:
    return form(
        session,
        lambda: server_pages.delete_commands(svc, session, server_id, fields),
        lambda error: with_error(server_pages.server_page(svc, session, server_id, None), error),
    )


handler = lambda_handler(ROUTE, endpoint)
