"""POST /login — sign in: set the session cookie and go on (303), or the form with its error."""

from fastapi import Request
from fastapi.responses import Response

from functions.admin_deps import PanelPagesDep, set_session_cookie
from functions.deps import ServicesDep, client_ip
from functions.pages import form_fields, render
from functions.runtime import Access, Interface, Route, lambda_handler
from webstore.admin import login
from webstore.storefront.pages import PageResult

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/login",
    "submitLogin",
    # Reads the member; writes only the guard's counters (interface access) and a rehash.
    frozenset({Access.TABLE_READ, Access.TABLE_WRITE}),
    "Sign in (form post)",
    html=True,
)


async def endpoint(svc: ServicesDep, request: Request, _pages: PanelPagesDep) -> Response:
    form = await form_fields(request)
    outcome = login.submit(
        svc,
        form.get("email", ""),
        form.get("password", ""),
        form.get("next"),
        client_ip(request),
        svc.now(),
        form.get("code", ""),
    )
    if isinstance(outcome, PageResult):
        return render(lambda: outcome)
    response = render(lambda: PageResult(redirect=outcome.location))
    set_session_cookie(request, response, outcome.cookie)
    return response


handler = lambda_handler(ROUTE, endpoint)
