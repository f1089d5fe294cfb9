"""GET /shop/theme — the shop's published templates as a theme file (JSON, a download)."""

from fastapi.responses import Response

from functions.admin_deps import StaffDep, respond
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import shop_pages
from webstore.admin.roles import Capability
from webstore.errors import DomainError
from webstore.html import PageResult

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/shop/theme",
    "exportShopTheme",
    READ,
    "Export the shop's published templates as a theme file",
    capability=Capability.SETTINGS_READ,
)


async def endpoint(svc: ServicesDep, session: StaffDep) -> Response:
    document = shop_pages.export(svc, session.account_id)
    try:
        session.confirm()  # the file is shown only to a session that stands, for a role that may
    except DomainError:
        return respond(session, PageResult)  # confirmed again there: the sign-in or the 403 page
    return Response(
        document,
        media_type="application/json",
        headers={
            "Content-Disposition": 'attachment; filename="shop-theme.json"',
            "Cache-Control": "no-store",
            "X-Content-Type-Options": "nosniff",
        },
    )


handler = lambda_handler(ROUTE, endpoint)
