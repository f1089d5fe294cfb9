"""POST /servers — add a server (form post; shows its secret once)."""

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
    "/servers",
    "createServer",
    WRITE,
    "Add a server (form post; shows its secret once)",
    html=True,
    capability=Capability.SERVERS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    return form(
        session,
        lambda: server_pages.create_server(svc, session, fields),
        lambda error: with_error(server_pages.servers_page(svc, session, fields), error),
    )


handler = lambda_handler(ROUTE, endpoint)
