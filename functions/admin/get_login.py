"""GET /login?next= — the control panel's sign-in page."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import PanelPagesDep
from functions.pages import render
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import login

ROUTE = Route(Interface.ADMIN, "GET", "/login", "getLogin", READ, "The sign-in page", html=True)


async def endpoint(_pages: PanelPagesDep, next_path: str | None = Query(None, alias="next")) -> Response:
    return render(lambda: login.form(next_path))


handler = lambda_handler(ROUTE, endpoint)
