"""GET /shop/look — the shop's look without code: logo, favicon, colours, texts, layout."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import shop_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/shop/look",
    "getShopLook",
    READ,
    "The shop's look without code: logo, favicon, colours, hero and banner texts, package layout",
    html=True,
    capability=Capability.SETTINGS_READ,
)


async def endpoint(svc: ServicesDep, session: StaffDep, done: str = Query("", max_length=200)) -> Response:
    return show(
        session,
        lambda: shop_pages.look_page(
            svc,
            session.account_id,
            csrf=lambda: session.csrf_token if session.may(Capability.SETTINGS_WRITE) else None,
        ),
        done=done,
    )


handler = lambda_handler(ROUTE, endpoint)
