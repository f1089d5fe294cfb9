"""GET /webhooks — webhook endpoints."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import webhook_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/webhooks",
    "getWebhooks",
    READ,
    "Webhook endpoints",
    html=True,
    capability=Capability.WEBHOOKS_READ,
)


async def endpoint(svc: ServicesDep, session: StaffDep, done: str = Query("", max_length=200)) -> Response:
    return show(session, lambda: webhook_pages.webhooks_page(svc, session), done=done)


handler = lambda_handler(ROUTE, endpoint)
