"""POST /account/password — change one's password: every other session ends, this one goes on
with a new cookie."""

from fastapi import Request
from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form, set_session_cookie
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import account_pages
from webstore.admin.flow import with_error

ROUTE = Route(
    Interface.ADMIN, "POST", "/account/password", "changePassword", WRITE, "Change your password", html=True
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep, request: Request) -> Response:
    changed = account_pages.PasswordChange(svc, session, fields, svc.now())
    response = form(
        session, changed, lambda error: with_error(account_pages.account_page(svc, session), error)
    )
    if changed.cookie is not None:
        set_session_cookie(request, response, changed.cookie)
    return response


handler = lambda_handler(ROUTE, endpoint)
