"""GET /setup — the first-sign-in setup: one step's form (`?step=`; none: where it resumes)."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import setup_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/setup",
    "getSetup",
    READ,
    "The first-sign-in setup: a category, a package, the server, the shop's look",
    html=True,
    capability=Capability.CATALOG_WRITE,
)


async def endpoint(
    svc: ServicesDep,
    session: StaffDep,
    step: str = Query("", max_length=40),
    done: str = Query("", max_length=200),
) -> Response:
    return show(session, lambda: setup_pages.setup_page(svc, session, step or None), done=done)


handler = lambda_handler(ROUTE, endpoint)
