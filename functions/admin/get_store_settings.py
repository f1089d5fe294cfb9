"""GET /settings — the store's settings, its sidebar modules and its payment gateways (secrets
never shown)."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import settings_pages
from webstore.admin.layout import csrf_field
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
    return show(
        session,
        lambda: settings_pages.settings_page(
            svc,
            session.account_id,
            csrf=csrf_field(session),
            may_write=lambda: session.may(Capability.SETTINGS_WRITE),
        ),
        done=done,
    )


handler = lambda_handler(ROUTE, endpoint)
