"""POST /webhooks/deliveries/{delivery_id}/redeliver — send one delivery again (form post)."""

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
    "/webhooks/deliveries/{delivery_id}/redeliver",
    "redeliverWebhook",
    WRITE_AND_PUBLISH,
    "Send one delivery again (form post)",
    html=True,
    capability=Capability.WEBHOOKS_WRITE,
)


async def endpoint(
    svc: ServicesDep, session: StaffDep, fields: FormDep, delivery_id: str = Path(max_length=120)
) -> Response:
    del fields  # checked (CSRF); the action has no fields
    return form(
        session,
        lambda: webhook_pages.redeliver(svc, session, delivery_id),
        lambda error: with_error(webhook_pages.delivery_page(svc, session, delivery_id), error),
    )


handler = lambda_handler(ROUTE, endpoint)
