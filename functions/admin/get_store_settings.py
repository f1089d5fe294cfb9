"""GET /settings — the store's settings, its sidebar modules and its payment gateways (secrets
never shown)."""

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
    "/settings",
    "getStoreSettings",
    READ,
    "Store settings",
    html=True,
    capability=Capability.SETTINGS_READ,
)


async def endpoint(svc: ServicesDep, session: StaffDep, done: str = Query("", max_length=200)) -> Response:
    return respond(session, lambda: catalog_pages.show_settings(svc, session, done))


handler = lambda_handler(ROUTE, endpoint)
