"""GET /subscriptions — the store's subscriptions (recurring payments), newest first, a page at a
time (one Query)."""

from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import subscription_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/subscriptions",
    "listSubscriptions",
    READ,
    "Subscriptions",
    html=True,
    capability=Capability.PAYMENTS_READ,
)


async def endpoint(svc: ServicesDep, session: StaffDep, below: str | None = None) -> Response:
    query = {"below": below} if below else {}
    return show(session, lambda: subscription_pages.subscriptions_page(svc, session.account_id, query))


handler = lambda_handler(ROUTE, endpoint)
