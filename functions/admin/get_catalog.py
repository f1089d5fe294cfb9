"""GET /catalog — the catalog's sections."""

from fastapi.responses import Response

from functions.admin_deps import StaffDep
from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import catalog_pages

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/catalog",
    "getCatalog",
    READ,
    "The catalog",
    html=True,
)


async def endpoint(svc: ServicesDep, session: StaffDep) -> Response:
    return render(lambda: catalog_pages.show_catalog(svc, session))


handler = lambda_handler(ROUTE, endpoint)
