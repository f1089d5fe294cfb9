"""GET /tax-report.csv — the tax report of a quarter or range as CSV (a download, ready for an
EU OSS return); a bad period is the report page at 422 naming the field."""

from fastapi import Request
from fastapi.responses import Response

from functions.admin_deps import StaffDep, respond, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import tax_report_pages
from webstore.admin.roles import Capability
from webstore.errors import DomainError
from webstore.html import PageResult

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/tax-report.csv",
    "exportTaxReport",
    READ,
    "Tax report as CSV (by country and rate, per quarter or range)",
    capability=Capability.PAYMENTS_READ,
)


async def endpoint(svc: ServicesDep, session: StaffDep, request: Request) -> Response:
    query = dict(request.query_params.items())
    today = svc.now().date()
    try:
        name, text = tax_report_pages.report_file(svc, session.account_id, query, today)
    except DomainError:  # the page says why, at the refusal's status
        return show(session, lambda: tax_report_pages.report_page(svc, session.account_id, query, today))
    try:
        session.confirm()  # the file is shown only to a session that stands, for a role that may
    except DomainError:
        return respond(session, PageResult)  # confirmed again there: the sign-in or the 403 page
    return Response(
        text,
        media_type="text/csv; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="{name}"',
            "Cache-Control": "no-store",
            "X-Content-Type-Options": "nosniff",
        },
    )


handler = lambda_handler(ROUTE, endpoint)
