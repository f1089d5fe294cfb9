"""POST /logout — end every session of the member and go to the sign-in page."""

from fastapi import Request
from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, clear_session_cookie
from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import sessions
from webstore.html import PageResult

ROUTE = Route(Interface.ADMIN, "POST", "/logout", "submitLogout", WRITE, "Log out (form post)", html=True)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep, request: Request) -> Response:
    del form  # checked (CSRF): a page elsewhere cannot log a member out
    sessions.end(svc, session)
    response = render(lambda: PageResult(redirect="/login"))
    clear_session_cookie(request, response)
    return response


handler = lambda_handler(ROUTE, endpoint)
