"""GET /webhooks/deliveries/{delivery_id} — one delivery and its attempts."""

from fastapi import Path, Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import webhook_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/webhooks/deliveries/{delivery_id}",
    "getWebhookDelivery",
    READ,
    "One delivery and its attempts",
    html=True,
    capability=Capability.WEBHOOKS_READ,
)


async def endpoint(
    svc: ServicesDep,
    session: StaffDep,
    delivery_id: str = Path(max_length=120),
    done: str = Query("", max_length=200),
) -> Response:
    return show(session, lambda: webhook_pages.delivery_page(svc, session, delivery_id), done=done)


handler = lambda_handler(ROUTE, endpoint)
