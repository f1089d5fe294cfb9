"""POST /webhooks/{endpoint_id}/secret — rotate an endpoint's signing secret (form post; shows it once)."""

from fastapi import Path
from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, respond
from functions.declarations import Access
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import ops_pages
from webstore.admin.roles import Capability

# Opens the endpoint's signing secret to sign the handshake (the dispatcher's key).
ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/webhooks/{endpoint_id}/secret",
    "rotateWebhookSecret",
    WRITE | {Access.WEBHOOK_KEY},
    "Rotate an endpoint's signing secret (form post; shows it once)",
    html=True,
    capability=Capability.WEBHOOKS_WRITE,
)


async def endpoint(
    svc: ServicesDep, session: StaffDep, form: FormDep, endpoint_id: int = Path(ge=1, le=2_147_483_647)
) -> Response:
    del form  # checked (CSRF); the action has no fields
    return respond(session, lambda: ops_pages.rotate_endpoint_secret(svc, session, endpoint_id))


handler = lambda_handler(ROUTE, endpoint)
