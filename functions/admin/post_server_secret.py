"""POST /servers/{server_id}/secret — rotate a server's secret (form post; shows it once)."""

from fastapi import Path
from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep
from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import ops_pages

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/servers/{server_id}/secret",
    "rotateServerSecret",
    WRITE,
    "Rotate a server's secret (form post; shows it once)",
    html=True,
)


async def endpoint(
    svc: ServicesDep, session: StaffDep, form: FormDep, server_id: int = Path(ge=1, le=2_147_483_647)
) -> Response:
    del form  # checked (CSRF); the action has no fields
    return render(lambda: ops_pages.rotate_server_secret(svc, session, server_id))


handler = lambda_handler(ROUTE, endpoint)
