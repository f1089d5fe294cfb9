"""POST /webhooks/{endpoint_id}/secret — rotate an endpoint's signing secret (form post; shows it once)."""

from fastapi import Path
from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep
from functions.declarations import Access
from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import ops_pages

# Opens the endpoint's signing secret to sign the handshake (the dispatcher's key).
ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/webhooks/{endpoint_id}/secret",
    "rotateWebhookSecret",
    WRITE | {Access.WEBHOOK_KEY},
    "Rotate an endpoint's signing secret (form post; shows it once)",
    html=True,
)


async def endpoint(
    svc: ServicesDep, session: StaffDep, form: FormDep, endpoint_id: int = Path(ge=1, le=2_147_483_647)
) -> Response:
    del form  # checked (CSRF); the action has no fields
    return render(lambda: ops_pages.rotate_endpoint_secret(svc, session, endpoint_id))


handler = lambda_handler(ROUTE, endpoint)
