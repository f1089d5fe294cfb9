"""GET /payments/{transaction} — one payment: lines, codes, its commands and whether each still
waits in its server's queue, notes, and the actions the role may take."""

from fastapi.responses import Response

from functions.admin_deps import StaffDep, respond
from functions.admin_money import forms_for, in_shell
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import money_pages
from webstore.admin.roles import Capability
from webstore.storefront.pages import PageResult

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
    def page() -> PageResult:
        csrf = forms_for(session, Capability.PAYMENTS_WRITE)
        shown = money_pages.payment_page(svc, session.account_id, transaction, csrf=csrf, done=done)
        return in_shell(shown, session)

    return respond(session, page)


handler = lambda_handler(ROUTE, endpoint)
