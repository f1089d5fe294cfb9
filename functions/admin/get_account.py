"""GET /account — one's own account: password change, the second factor."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import account_pages

ROUTE = Route(Interface.ADMIN, "GET", "/account", "getAccount", READ, "Your account", html=True)


async def endpoint(svc: ServicesDep, session: StaffDep, done: str = Query("", max_length=40)) -> Response:
    return show(
        session, lambda: account_pages.account_page(svc, session), done=account_pages.DONE.get(done, "")
    )


handler = lambda_handler(ROUTE, endpoint)
