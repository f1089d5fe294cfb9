"""GET /catalog/{section}/{element} — one element's form (`new`: an empty one), with the
catalog revision it is read at."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, respond
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import catalog_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/catalog/{section}/{element}",
    "getCatalogElement",
    READ,
    "A catalog element's form",
    html=True,
    capability=Capability.CATALOG_READ,
)


async def endpoint(
    section: str,
    element: str,
    svc: ServicesDep,
    session: StaffDep,
    done: str = Query("", max_length=200),
) -> Response:
    return respond(session, lambda: catalog_pages.show_element(svc, session, section, element, done))


handler = lambda_handler(ROUTE, endpoint)
