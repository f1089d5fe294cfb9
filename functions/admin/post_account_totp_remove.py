"""POST /account/totp/remove — turn the second factor off (with one's password)."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, respond
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import staff, staff_pages
from webstore.errors import Invalid
from webstore.storefront.pages import PageResult

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/account/totp/remove",
    "removeTotp",
    WRITE,
    "Turn the second factor off",
    html=True,
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep) -> Response:
    try:
        staff.disable_totp(svc, session, form.get("password", ""), svc.now())
    except Invalid as refused:
        detail = refused.detail
        return respond(session, lambda: staff_pages.account_page(svc, session, error=detail, status=422))
    return respond(session, lambda: PageResult(redirect="/account?done=totp-removed"))


handler = lambda_handler(ROUTE, endpoint)
