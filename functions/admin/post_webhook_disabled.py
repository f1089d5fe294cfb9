"""POST /webhooks/{endpoint_id}/disabled — disable or enable an endpoint (form post)."""

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
    "/webhooks/{endpoint_id}/disabled",
    "setWebhookDisabled",
    WRITE,
    "Disable or enable an endpoint (form post)",
    html=True,
    capability=Capability.WEBHOOKS_WRITE,
)


async def endpoint(
    svc: ServicesDep, session: StaffDep, form: FormDep, endpoint_id: int = Path(ge=1, le=2_147_483_647)
) -> Response:
    return respond(session, lambda: ops_pages.set_disabled(svc, session, endpoint_id, form))


handler = lambda_handler(ROUTE, endpoint)
