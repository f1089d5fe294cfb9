"""POST /webhooks/{endpoint_id}/disabled — disable or enable an endpoint (form post)."""

from fastapi import Path
from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import webhook_pages
from webstore.admin.flow import with_error
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
    svc: ServicesDep, session: StaffDep, fields: FormDep, endpoint_id: int = Path(ge=1, le=2_147_483_647)
) -> Response:
    return form(
        session,
        lambda: webhook_pages.set_disabled(svc, session, endpoint_id, fields),
        lambda error: with_error(webhook_pages.endpoint_page(svc, session, endpoint_id, None), error),
    )


handler = lambda_handler(ROUTE, endpoint)
