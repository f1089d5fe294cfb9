"""POST /shop/publish — serve a kept version of a shop template (a rollback), or the house's file."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import shop_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/shop/publish",
    "publishShopTemplate",
    WRITE,
    "Publish a kept version of a shop template (rollback), or the house's file again (form post)",
    html=True,
    capability=Capability.SETTINGS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    account = session.account_id
    return form(
        session,
        lambda: shop_pages.publish_action(svc, account, fields, actor=session.email, now=svc.now()),
        lambda error: shop_pages.editor_again(svc, account, fields, error, csrf=lambda: session.csrf_token),
    )


handler = lambda_handler(ROUTE, endpoint)
