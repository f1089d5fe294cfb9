"""GET /subscriptions/{reference} — one subscription: status, period, payments, a pending
cancellation, and the cancel (or keep) form for a role that may use it."""

from fastapi.responses import Response

from functions.admin_deps import StaffDep, forms_for, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import subscription_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/subscriptions/{reference}",
    "showSubscription",
    READ,
    "One subscription",
    html=True,
    capability=Capability.PAYMENTS_READ,
)


async def endpoint(svc: ServicesDep, session: StaffDep, reference: str, done: str | None = None) -> Response:
    return show(
        session,
        lambda: subscription_pages.subscription_page(
            svc, session.account_id, reference, csrf=forms_for(session, Capability.PAYMENTS_WRITE), done=done
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
