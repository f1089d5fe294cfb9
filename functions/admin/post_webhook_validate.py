"""POST /webhooks/{endpoint_id}/validate — run the validation handshake (form post)."""

from fastapi import Path
from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.declarations import Access
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import webhook_pages
from webstore.admin.flow import with_error
from webstore.admin.roles import Capability

# Opens the endpoint's signing secret to sign the handshake (the dispatcher's key).
ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/webhooks/{endpoint_id}/validate",
    "validateWebhook",
    WRITE | {Access.WEBHOOK_KEY},
    "Run the validation handshake (form post)",
    html=True,
    capability=Capability.WEBHOOKS_WRITE,
)


async def endpoint(
    svc: ServicesDep, session: StaffDep, fields: FormDep, endpoint_id: int = Path(ge=1, le=2_147_483_647)
) -> Response:
    del fields  # checked (CSRF); the action has no fields
    return form(
        session,
        lambda: webhook_pages.validate_endpoint(svc, session, endpoint_id),
        lambda error: with_error(webhook_pages.endpoint_page(svc, session, endpoint_id, None), error),
    )


handler = lambda_handler(ROUTE, endpoint)
