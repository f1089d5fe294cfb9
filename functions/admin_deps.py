"""The control panel's page contract: the staff session, a POST's form after its CSRF check,
and the one way a page or a form's outcome becomes a response.

`StaffDep`: the signed session cookie → `StaffSession`, carrying the capability the route
declares (`Route.capability`, handed over by the runtime). The member item is read beside the
page's own reads (one round trip between them) and checked when the page first asks who is
signed in; `respond` checks it in any case before anything the page produced is shown, its
errors included. Without a valid session a GET goes to the sign-in page (303, then back), a POST
too (its form is lost: the session ended while it was open); a role without the capability gets
the 403 page. `FormDep`: the form fields of a POST whose `csrf` field is the session's token,
the session and the capability checked before the handler runs; otherwise the 403 page and
nothing is done.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import Depends, Request
from fastapi.responses import Response

from functions.declarations import Route
from functions.deps import ServicesDep
from functions.forms import form_fields
from functions.pages import problem_renderer, render
from webstore.admin.flow import PanelPage, submit
from webstore.admin.layout import csrf_field, login_location, panel_page, problem
from webstore.admin.roles import Capability
from webstore.admin.sessions import (
    COOKIE_NAME,
    CsrfRefused,
    SessionCookie,
    SignInRequired,
    StaffSession,
    claim,
    csrf_matches,
)
from webstore.errors import DomainError
from webstore.html import Markup, PageResult

# A panel form may carry more fields than a hosted page's (a package with its commands).
MAX_FORM_FIELDS = 400


def _panel_problem(title: str, message: str) -> str:
    return problem(title, message)


async def panel_pages() -> None:
    """Domain errors of this request render as the panel's error page (functions.pages.render)."""
    problem_renderer.set(_panel_problem)


PanelPagesDep = Annotated[None, Depends(panel_pages)]


async def staff_session(request: Request, svc: ServicesDep, _pages: PanelPagesDep) -> StaffSession:
    here = request.url.path if request.method == "GET" else request.headers.get("hx-current-url", "/")
    if request.method == "GET" and request.url.query:
        here = f"{here}?{request.url.query}"
    sign_in = login_location(_path_of(here))
    route: Route | None = getattr(request.state, "route", None)
    required = route.capability if route is not None else None
    session = claim(svc, request.cookies.get(COOKIE_NAME), svc.now(), required=required, sign_in=sign_in)
    if session is None:
        raise SignInRequired(sign_in)
    if request.method != "GET":
        session.confirm()  # a change is never started for a session that does not stand
    return session


def _path_of(url: str) -> str:
    """The path (and query) of a same-origin URL htmx reports; a path stays as it is."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}" if parts.query else parts.path or "/"


StaffDep = Annotated[StaffSession, Depends(staff_session)]


async def checked_form(request: Request, session: StaffDep) -> dict[str, str]:
    form = await form_fields(request, MAX_FORM_FIELDS)
    if not csrf_matches(session, form.pop("csrf", None)):
        raise CsrfRefused()
    return form


FormDep = Annotated[dict[str, str], Depends(checked_form)]


def respond(session: StaffSession, page: Callable[[], PageResult]) -> Response:
    """The one way a panel page or form answers: `page` run, then the session and the route's
    capability confirmed before its result (or its error) is shown: a session that no longer
    stands goes to the sign-in page, a role without the capability gets the 403 page."""

    def checked() -> PageResult:
        try:
            try:
                result = page()
            except DomainError:
                session.confirm()  # whether the member may see the error comes first
                raise
            session.confirm()
            return result
        except SignInRequired as gone:
            return PageResult(redirect=gone.location)

    return render(checked)


def show(session: StaffSession, page: Callable[[], PanelPage], *, done: str = "") -> Response:
    """A panel page: its content in the shell (`done`: the confirmation after a form)."""
    return respond(session, lambda: in_shell(page(), session, done=done))


def form(
    session: StaffSession, action: Callable[[], str | PanelPage], again: Callable[[DomainError], PanelPage]
) -> Response:
    """A panel form (webstore.admin.flow.submit): 303 where `action` says, or the same form
    again, at the refusal's status, with what was typed and why."""

    def answer() -> PageResult:
        outcome = submit(action, again)
        return PageResult(redirect=outcome) if isinstance(outcome, str) else in_shell(outcome, session)

    return respond(session, answer)


def forms_for(session: StaffSession, capability: Capability) -> Callable[[], Markup | None]:
    """The CSRF field for a role that may use the page's forms (`capability`); None hides them.
    Asked for by the page once its own reads are issued (asking checks the session, whose member
    read then shares their round trip)."""
    return lambda: csrf_field(session) if session.may(capability) else None


def in_shell(page: PanelPage, session: StaffSession, *, done: str = "") -> PageResult:
    return PageResult(
        page.status,
        panel_page(page.title, page.body, session=session, section=page.section, store=page.store, done=done),
    )


def _secure(request: Request) -> bool:
    """HTTPS as the browser sees it (API Gateway terminates TLS and says so in the header)."""
    forwarded = request.headers.get("x-forwarded-proto", "")
    return request.url.scheme == "https" or forwarded.split(",")[0].strip() == "https"


def set_session_cookie(request: Request, response: Response, cookie: SessionCookie) -> None:
    """HttpOnly, SameSite=Lax, Secure over https, for the whole panel, expiring with the session."""
    response.set_cookie(
        COOKIE_NAME,
        cookie.value,
        max_age=cookie.max_age,
        path="/",
        httponly=True,
        samesite="lax",
        secure=_secure(request),
    )


def clear_session_cookie(request: Request, response: Response) -> None:
    response.delete_cookie(COOKIE_NAME, path="/", httponly=True, samesite="lax", secure=_secure(request))


def same_origin(request: Request) -> bool:
    """False when the browser says the request came from another site: `Sec-Fetch-Site` (sent by
    current browsers whatever the referrer policy), else an `Origin` naming another host. The
    panel's pages send no referrer, so their own posts carry `Origin: null`, which proves
    nothing either way; a request with neither header (curl, a script) is not refused here."""
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None:
        return fetch_site in ("same-origin", "none")
    origin = request.headers.get("origin")
    if not origin or origin == "null":
        return True
    from urllib.parse import urlsplit

    return urlsplit(origin).netloc.lower() == request.headers.get("host", "").lower()
