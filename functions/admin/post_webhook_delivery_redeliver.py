"""POST /webhooks/deliveries/{delivery_id}/redeliver — send one delivery again (form post)."""

from fastapi import Path
from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, respond
from functions.deps import ServicesDep
from functions.runtime import WRITE_AND_PUBLISH, Interface, Route, lambda_handler
from webstore.admin import ops_pages
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
    svc: ServicesDep, session: StaffDep, form: FormDep, delivery_id: str = Path(max_length=120)
) -> Response:
    del form  # checked (CSRF); the action has no fields
    return respond(session, lambda: ops_pages.redeliver(svc, session, delivery_id))


handler = lambda_handler(ROUTE, endpoint)
