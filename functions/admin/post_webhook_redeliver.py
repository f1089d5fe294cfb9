"""POST /webhooks/{endpoint_id}/redeliver — send every failed delivery since a time again (form post)."""

from fastapi import Path
from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.deps import ServicesDep
from functions.runtime import WRITE_AND_PUBLISH, Interface, Route, lambda_handler
from webstore.admin import webhook_pages
from webstore.admin.flow import with_error
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/webhooks/{endpoint_id}/redeliver",
    "redeliverFailedWebhooks",
    WRITE_AND_PUBLISH,
    "Send every failed delivery since a time again (form post)",
    html=True,
    capability=Capability.WEBHOOKS_WRITE,
)


async def endpoint(
    svc: ServicesDep, session: StaffDep, fields: FormDep, endpoint_id: int = Path(ge=1, le=2_147_483_647)
) -> Response:
    return form(
        session,
        lambda: webhook_pages.redeliver_failed(svc, session, endpoint_id, fields),
        lambda error: with_error(webhook_pages.endpoint_page(svc, session, endpoint_id, None), error),
    )


handler = lambda_handler(ROUTE, endpoint)
