"""GET /webhooks — webhook endpoints."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep
from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import ops_pages

ROUTE = Route(Interface.ADMIN, "GET", "/webhooks", "getWebhooks", READ, "Webhook endpoints", html=True)


async def endpoint(svc: ServicesDep, session: StaffDep, done: str = Query("", max_length=200)) -> Response:
    return render(lambda: ops_pages.webhooks_page(svc, session, done))


handler = lambda_handler(ROUTE, endpoint)
