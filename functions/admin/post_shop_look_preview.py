"""POST /shop/look/preview — the shop's home page with a draft look, rendered without storing it."""

from dataclasses import replace

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, in_shell, respond
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import shop_pages
from webstore.admin.flow import correctable
from webstore.admin.roles import Capability
from webstore.errors import DomainError
from webstore.html import PageResult

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/shop/look/preview",
    "previewShopLook",
    READ,
    "Preview the shop's home page with a draft look, nothing stored (form post)",
    html=True,
    capability=Capability.SETTINGS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    def answer() -> PageResult:
        try:
            html, policy = shop_pages.look_preview(svc, session.account_id, fields)
        except DomainError as error:
            if not correctable(error):
                raise
            again = shop_pages.look_page(
                svc, session.account_id, csrf=lambda: session.csrf_token, typed=fields, error=error.detail
            )
            return in_shell(replace(again, status=error.status), session)
        return PageResult(200, html, csp=policy)

    return respond(session, answer)


handler = lambda_handler(ROUTE, endpoint)
