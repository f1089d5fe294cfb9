"""POST /account/password — change one's password: every other session ends, this one goes on
with a new cookie."""

from fastapi import Request
from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, respond, set_session_cookie
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import sessions, staff, staff_pages
from webstore.errors import Invalid
from webstore.storefront.pages import PageResult

ROUTE = Route(
    Interface.ADMIN, "POST", "/account/password", "changePassword", WRITE, "Change your password", html=True
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep, request: Request) -> Response:
    now = svc.now()
    try:
        version = staff.change_password(
            svc, session, form.get("current", ""), form.get("new", ""), form.get("confirm", ""), now
        )
    except Invalid as refused:
        detail = refused.detail
        return respond(session, lambda: staff_pages.account_page(svc, session, error=detail, status=422))
    response = respond(session, lambda: PageResult(redirect="/account?done=password"))
    set_session_cookie(request, response, sessions.reissue(svc, session, version, now))
    return response


handler = lambda_handler(ROUTE, endpoint)
