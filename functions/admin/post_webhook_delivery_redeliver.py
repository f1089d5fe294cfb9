"""POST /webhooks/deliveries/{delivery_id}/redeliver — send one delivery again (form post)."""

from fastapi import Path
from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep
from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import WRITE_AND_PUBLISH, Interface, Route, lambda_handler
from webstore.admin import ops_pages

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/webhooks/deliveries/{delivery_id}/redeliver",
    "redeliverWebhook",
    WRITE_AND_PUBLISH,
    "Send one delivery again (form post)",
    html=True,
)


async def endpoint(
    svc: ServicesDep, session: StaffDep, form: FormDep, delivery_id: str = Path(max_length=120)
) -> Response:
    del form  # checked (CSRF); the action has no fields
    return render(lambda: ops_pages.redeliver(svc, session, delivery_id))


handler = lambda_handler(ROUTE, endpoint)
