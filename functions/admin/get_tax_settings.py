"""GET /settings/tax — the store's tax settings (and a Stripe Tax store's registrations)."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Access, Interface, Route, lambda_handler
from webstore.admin import tax_pages
from webstore.admin.layout import csrf_field
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/settings/tax",
    "getTaxSettings",
    READ | {Access.GATEWAY_KEY},  # a Stripe Tax store's registrations are read with its key
    "Tax settings",
    html=True,
    capability=Capability.SETTINGS_READ,
)


async def endpoint(svc: ServicesDep, session: StaffDep, done: str = Query("", max_length=200)) -> Response:
    return show(
        session,
        lambda: tax_pages.tax_page(
            svc,
            session.account_id,
            csrf=csrf_field(session),
            may_write=lambda: session.may(Capability.SETTINGS_WRITE),
        ),
        done=done,
    )


handler = lambda_handler(ROUTE, endpoint)
