"""Signing in to the control panel in tests: a staff member of a given role, and a client that
keeps its session cookie and CSRF token — through the handlers under moto (`PanelClient`) or
over HTTP against the local stack (`http_sign_in`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from tests.support.invocation import invoke
from tests.support.lambda_events import Response
from webstore.admin.roles import Role
from webstore.admin.sessions import COOKIE_NAME
from webstore.admin.staff import NewStaff, create_member
from webstore.services import get_services

PASSWORD = "correct horse battery staple"
_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def add_staff(
    role: Role = Role.OWNER, *, account_id: int = 1, email: str | None = None, password: str = PASSWORD
) -> NewStaff:
    """A staff member of the store with `role` (default address: `{role}@store{account}.test`)."""
    address = email or f"{role.value}@store{account_id}.test"
    return create_member(get_services(), account_id, address, role, datetime.now(UTC), password)


def form_body(fields: dict[str, str]) -> dict[str, Any]:
    raw = urlencode(fields)
    return {"raw_body": raw, "headers": {"content-type": "application/x-www-form-urlencoded"}}


def session_cookie(response: Response) -> str | None:
    """The session cookie's value a response sets ('' when it clears it); None: not set."""
    for each in response.cookies:
        name, _, rest = each.partition("=")
        if name == COOKIE_NAME:
            return rest.split(";", 1)[0].strip('"')
    return None


def csrf_of(html: str) -> str:
    found = _CSRF.search(html)
    assert found, "the page has no CSRF field"
    return found.group(1)


@dataclass
class PanelClient:
    """A browser of the panel, through the handlers: the session cookie and its CSRF token."""

    cookie: str = ""
    csrf: str = ""
    source_ip: str = "198.51.100.7"
    last: Response | None = field(default=None, repr=False)

    def headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = {"cookie": f"{COOKIE_NAME}={self.cookie}"} if self.cookie else {}
        return {**headers, **(extra or {})}

    def get(self, handler: Any, path: str, query: dict[str, str] | None = None) -> Response:
        self.last = invoke(
            handler, "GET", path, query=query, headers=self.headers(), source_ip=self.source_ip
        )
        return self.last

    def post(self, handler: Any, path: str, fields: dict[str, str], *, csrf: str | None = None) -> Response:
        """A form post with the session's CSRF token (or `csrf`, '' for none)."""
        token = self.csrf if csrf is None else csrf
        body = form_body({**({"csrf": token} if token else {}), **fields})
        self.last = invoke(
            handler,
            "POST",
            path,
            raw_body=body["raw_body"],
            headers=self.headers(body["headers"]),
            source_ip=self.source_ip,
        )
        return self.last

    def sign_in(self, email: str, password: str = PASSWORD) -> Response:
        """POST /login; on success keeps the cookie and reads the CSRF token from the home page."""
        from functions.admin import get_dashboard, post_login

        response = self.post(post_login.handler, "/login", {"email": email, "password": password}, csrf="")
        cookie = session_cookie(response)
        if response.status == 303 and cookie:
            self.cookie = cookie
            self.csrf = csrf_of(self.get(get_dashboard.handler, "/").body)
        return response


def signed_in(role: Role = Role.OWNER, *, account_id: int = 1, email: str | None = None) -> PanelClient:
    """A client signed in as a new staff member with `role` (the store must exist)."""
    member = add_staff(role, account_id=account_id, email=email)
    client = PanelClient()
    response = client.sign_in(member.member.email)
    assert response.status == 303, response.body
    return client


def http_sign_in(base_url: str, email: str, password: str) -> tuple[dict[str, str], str]:
    """Sign in over HTTP (the local stack): (cookies, csrf token) for further requests."""
    import httpx

    with httpx.Client(base_url=base_url, follow_redirects=False, timeout=10) as http:
        response = http.post("/login", data={"email": email, "password": password})
        assert response.status_code == 303, response.text
        cookies = dict(response.cookies)
        home = http.get("/")  # the client keeps the cookie it was given
        assert home.status_code == 200, home.text
        return cookies, csrf_of(home.text)
