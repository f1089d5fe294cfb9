"""POST /shop/templates — save a shop template as a new version (checked first), published or a draft."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import shop_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/shop/templates",
    "saveShopTemplate",
    WRITE,
    "Save a shop template as a new version, published at once or as a draft (form post)",
    html=True,
    capability=Capability.SETTINGS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    account = session.account_id
    return form(
        session,
        lambda: shop_pages.save_action(svc, account, fields, actor=session.email, now=svc.now()),
        lambda error: shop_pages.editor_again(svc, account, fields, error, csrf=lambda: session.csrf_token),
    )


handler = lambda_handler(ROUTE, endpoint)
