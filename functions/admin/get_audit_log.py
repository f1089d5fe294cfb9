"""GET /audit — who changed what and when, newest first, 50 a page (`cursor`: where the
previous page ended)."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import audit_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/audit",
    "getAuditLog",
    READ,
    "The audit log",
    html=True,
    capability=Capability.AUDIT_READ,
)


async def endpoint(
    svc: ServicesDep, session: StaffDep, cursor: str | None = Query(None, max_length=40)
) -> Response:
    return show(session, lambda: audit_pages.audit_page(svc, session.account_id, cursor))


handler = lambda_handler(ROUTE, endpoint)
