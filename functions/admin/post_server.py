"""POST /servers — add a server (form post; shows its secret once)."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep
from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import ops_pages

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/servers",
    "createServer",
    WRITE,
    "Add a server (form post; shows its secret once)",
    html=True,
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep) -> Response:
    return render(lambda: ops_pages.create_server(svc, session, form))


handler = lambda_handler(ROUTE, endpoint)
