"""POST /account/password — change one's password: every other session ends, this one goes on
with a new cookie."""

from fastapi import Request
from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, respond, set_session_cookie
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import account_pages

ROUTE = Route(
    Interface.ADMIN, "POST", "/account/password", "changePassword", WRITE, "Change your password", html=True
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep, request: Request) -> Response:
    changed = account_pages.submit_password(svc, session, form, svc.now())
    response = respond(session, lambda: changed.page)
    if changed.cookie is not None:
        set_session_cookie(request, response, changed.cookie)
    return response


handler = lambda_handler(ROUTE, endpoint)
