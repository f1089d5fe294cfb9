"""The sign-in page and its form (HTTP-free): what a handler renders and sets."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from webstore.admin import sessions, setup_pages, staff
from webstore.admin.layout import bare_page, safe_next
from webstore.errors import Unauthorized
from webstore.html import PageResult, fragment
from webstore.services import Services

TITLE = "Sign in"


def form(next_path: str | None, *, email: str = "", error: str = "", status: int = 200) -> PageResult:
    """The sign-in page (templates/panel/login.html), with what was typed and why it was refused."""
    body = fragment("panel/login.html", next=safe_next(next_path), email=email, error=error)
    return PageResult(status, bare_page(TITLE, body))


@dataclass(frozen=True)
class SignedIn:
    """A successful sign-in: the cookie to set and where to go."""

    cookie: sessions.SessionCookie
    location: str


def submit(
    services: Services,
    email: str,
    password: str,
    next_path: str | None,
    client: str,
    now: datetime,
    code: str = "",
) -> SignedIn | PageResult:
    """Sign in: the session cookie and the page to go to (the setup, for an owner of a store
    with no package yet: setup_pages.landing), or the form again with the one message every
    refusal has (401). Throttled (429) past the allowed failures."""
    try:
        member = staff.sign_in(services, email, password, client, now, code)
    except Unauthorized as refused:
        return form(next_path, email=email, error=refused.detail, status=401)
    location = setup_pages.landing(services, member.account_id, member.role, safe_next(next_path))
    return SignedIn(sessions.issue(services, member, now), location)
