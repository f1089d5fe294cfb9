"""GET /tax-report — tax collected by buyer country and rate, net sales and refunds, for a
quarter (`quarter=2026-Q1`) or a range of days (`from`, `to`): panel → Tax report."""

from fastapi import Request
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import tax_report_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/tax-report",
    "getTaxReport",
    READ,
    "Tax report (by country and rate, per quarter or range)",
    html=True,
    capability=Capability.PAYMENTS_READ,
)


async def endpoint(svc: ServicesDep, session: StaffDep, request: Request) -> Response:
    query = dict(request.query_params.items())
    today = svc.now().date()
    return show(session, lambda: tax_report_pages.report_page(svc, session.account_id, query, today))


handler = lambda_handler(ROUTE, endpoint)
