"""GET /webhooks/{endpoint_id} — an endpoint and its delivery log."""

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
    "/webhooks/{endpoint_id}",
    "getWebhook",
    READ,
    "An endpoint and its delivery log",
    html=True,
    capability=Capability.WEBHOOKS_READ,
)


async def endpoint(
    svc: ServicesDep,
    session: StaffDep,
    endpoint_id: int = Path(ge=1, le=2_147_483_647),
    cursor: str = Query("", max_length=120),
    done: str = Query("", max_length=200),
) -> Response:
    return show(session, lambda: webhook_pages.endpoint_page(svc, session, endpoint_id, cursor), done=done)


handler = lambda_handler(ROUTE, endpoint)
