"""POST /settings/tax — save the store's tax settings through the catalog's validation."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.deps import ServicesDep
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.admin import tax_pages
from webstore.admin.layout import csrf_field
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/settings/tax",
    "saveTaxSettings",
    WRITE
    | {
        Access.WEBHOOK_KEY,
        Access.GATEWAY_KEY,
    },  # the import keeps secrets sealed; the page again reads Stripe
    "Save the tax settings",
    html=True,
    timeout_seconds=29,  # the catalog's export and import
    capability=Capability.SETTINGS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    return form(
        session,
        lambda: tax_pages.save_tax_action(
            svc, session.account_id, fields, actor=session.email, now=svc.now()
        ),
        lambda error: tax_pages.tax_again(svc, session.account_id, fields, error, csrf=csrf_field(session)),
    )


handler = lambda_handler(ROUTE, endpoint)
