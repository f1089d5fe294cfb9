"""GET /settings — the store's settings, its sidebar modules and its payment gateways (secrets
never shown)."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep
from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import catalog_pages

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/settings",
    "getStoreSettings",
    READ,
    "Store settings",
    html=True,
)


async def endpoint(svc: ServicesDep, session: StaffDep, done: str = Query("", max_length=200)) -> Response:
    return render(lambda: catalog_pages.show_settings(svc, session, done))


handler = lambda_handler(ROUTE, endpoint)
