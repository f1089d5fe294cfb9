"""Control-panel scenarios for scripts/bench_round_trips.py: sign-in (page and form), the home,
staff and account pages with a session, logout. Every page is its own reads with the session
check (one GetItem) beside them (docs/data-model.md, "Control panel")"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from functions.admin import get_account, get_dashboard, get_login, get_staff, post_login, post_logout
from webstore.admin import sessions
from webstore.admin.roles import Role
from webstore.admin.staff import create_member
from webstore.services import get_services

ACCOUNT = 1
EMAIL = "bench-owner@example.com"
PASSWORD = "bench password 123"


def setup(ctx: dict[str, Any]) -> None:
    services = get_services()
    created = create_member(services, ACCOUNT, EMAIL, Role.OWNER, datetime.now(UTC), PASSWORD)
    cookie = sessions.issue(services, created.member, datetime.now(UTC))
    session = sessions.check(services, cookie.value, datetime.now(UTC))
    assert session is not None
    ctx["admin_cookie"] = f"{sessions.COOKIE_NAME}={cookie.value}"
    ctx["admin_csrf"] = session.csrf_token


def _form(fields: dict[str, str], cookie: str = "") -> dict[str, Any]:
    headers = {"content-type": "application/x-www-form-urlencoded", **({"cookie": cookie} if cookie else {})}
    return {"raw_body": urlencode(fields), "headers": headers}


def scenarios(ctx: dict[str, Any]) -> Iterator[tuple[str, Any, str, str, dict[str, Any]]]:
    cookie = ctx["admin_cookie"]
    yield "admin GET /login", get_login.handler, "GET", "/login", {}
    yield (
        "admin POST /login",
        post_login.handler,
        "POST",
        "/login",
        _form({"email": EMAIL, "password": PASSWORD}) | {"source_ip": "198.51.100.200"},
    )
    yield (
        "admin POST /login (wrong password)",
        post_login.handler,
        "POST",
        "/login",
        _form({"email": EMAIL, "password": "wrong password"}) | {"source_ip": "198.51.100.201"},
    )
    yield "admin GET / (home)", get_dashboard.handler, "GET", "/", {"headers": {"cookie": cookie}}
    yield "admin GET /staff", get_staff.handler, "GET", "/staff", {"headers": {"cookie": cookie}}
    yield "admin GET /account", get_account.handler, "GET", "/account", {"headers": {"cookie": cookie}}
    yield (
        "admin POST /logout",
        post_logout.handler,
        "POST",
        "/logout",
        _form({"csrf": ctx["admin_csrf"]}, cookie),
    )
