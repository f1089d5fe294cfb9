"""POST /servers/{server_id}/secret — rotate a server's secret (form post; shows it once)."""

from fastapi import Path
from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, respond
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import ops_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/servers/{server_id}/secret",
    "rotateServerSecret",
    WRITE,
    "Rotate a server's secret (form post; shows it once)",
    html=True,
    capability=Capability.SERVERS_WRITE,
)


async def endpoint(
    svc: ServicesDep, session: StaffDep, form: FormDep, server_id: int = Path(ge=1, le=2_147_483_647)
) -> Response:
    del form  # checked (CSRF); the action has no fields
    return respond(session, lambda: ops_pages.rotate_server_secret(svc, session, server_id))


handler = lambda_handler(ROUTE, endpoint)
