"""POST /login — sign in: set the session cookie and go on (303), or the form with its error."""

from fastapi import Request
from fastapi.responses import Response

from functions.admin_deps import PanelPagesDep, same_origin, set_session_cookie
from functions.deps import ServicesDep, client_ip
from functions.forms import form_fields
from functions.pages import render
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import login
from webstore.admin.layout import problem
from webstore.html import PageResult

# A sign-in form posted from another site (login CSRF: the victim signed in to the attacker's
# account) is refused; browsers send Origin on every cross-site POST.
CROSS_SITE = "Sign in from the panel's own sign-in page."

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/login",
    "submitLogin",
    # Reads the member; writes the guard's counters, a rehash, the second factor's used step.
    WRITE,
    "Sign in (form post)",
    html=True,
)


async def endpoint(svc: ServicesDep, request: Request, _pages: PanelPagesDep) -> Response:
    if not same_origin(request):
        return render(
            lambda: PageResult(403, problem("Forbidden", CROSS_SITE, href="/login", link="Sign in"))
        )
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
