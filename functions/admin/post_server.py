"""POST /servers — add a server (form post; shows its secret once)."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, respond
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import ops_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/servers",
    "createServer",
    WRITE,
    "Add a server (form post; shows its secret once)",
    html=True,
    capability=Capability.SERVERS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep) -> Response:
    return respond(session, lambda: ops_pages.create_server(svc, session, form))


handler = lambda_handler(ROUTE, endpoint)
