"""GET /payments — search payments by player, transaction, package, date range and status;
newest first, a page at a time (each way a key lookup or a bounded Query: docs/panel.md)."""

from fastapi import Request
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import payment_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/payments",
    "searchPayments",
    READ,
    "Search payments",
    html=True,
    capability=Capability.PAYMENTS_READ,
)


async def endpoint(svc: ServicesDep, session: StaffDep, request: Request) -> Response:
    query = dict(request.query_params.items())
    return show(session, lambda: payment_pages.payments_page(svc, session.account_id, query))


handler = lambda_handler(ROUTE, endpoint)
