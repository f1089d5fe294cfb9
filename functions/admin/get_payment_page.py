"""GET /payments/{transaction} — one payment: lines, codes, its commands and whether each still
waits in its server's queue, notes, and the actions the role may take."""

from fastapi.responses import Response

from functions.admin_deps import StaffDep, forms_for, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import payment_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/payments/{transaction}",
    "getPaymentPage",
    READ,
    "One payment",
    html=True,
    capability=Capability.PAYMENTS_READ,
)


async def endpoint(
    svc: ServicesDep, session: StaffDep, transaction: str, done: str | None = None
) -> Response:
    return show(
        session,
        lambda: payment_pages.payment_page(
            svc,
            session.account_id,
            transaction,
            csrf=forms_for(session, Capability.PAYMENTS_WRITE),
            done=done,
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
