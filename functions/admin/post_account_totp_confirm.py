"""POST /account/totp/confirm — a code from the app turns the second factor on."""

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
    "/account/totp/confirm",
    "confirmTotp",
    WRITE,
    "Turn the second factor on",
    html=True,
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep) -> Response:
    sealed, code = form.get("sealed", ""), form.get("code", "")
    try:
        staff.confirm_totp(svc, session, sealed, code, svc.now())
    except Invalid as refused:
        detail, kept = refused.detail, "" if refused.field == "sealed" else sealed
        return respond(
            session, lambda: staff_pages.enrolment_page(svc, session, sealed=kept, error=detail, status=422)
        )
    return respond(session, lambda: PageResult(redirect="/account?done=totp"))


handler = lambda_handler(ROUTE, endpoint)
