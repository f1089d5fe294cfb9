"""POST /shop/look — save the shop's look (checked first; on the revision the form read)."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import shop_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/shop/look",
    "saveShopLook",
    WRITE,
    "Save the shop's look: logo, favicon, colours, hero and banner texts, package layout (form post)",
    html=True,
    capability=Capability.SETTINGS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    account = session.account_id
    return form(
        session,
        lambda: shop_pages.look_action(svc, account, fields, actor=session.email, now=svc.now()),
        lambda error: shop_pages.look_page(
            svc,
            account,
            csrf=lambda: session.csrf_token,
            typed=fields,
            error=error.detail,
            status=error.status,
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
