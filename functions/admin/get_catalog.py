"""GET /catalog — the catalog's sections."""

from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import catalog_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/catalog",
    "getCatalog",
    READ,
    "The catalog",
    html=True,
    capability=Capability.CATALOG_READ,
)


async def endpoint(svc: ServicesDep, session: StaffDep) -> Response:
    return show(session, catalog_pages.catalog_home)


handler = lambda_handler(ROUTE, endpoint)
