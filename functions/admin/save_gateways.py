"""POST /settings/gateways — the Stripe keys and the sandbox switch; the secrets are
write-only (blank: kept)."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.deps import ServicesDep
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.admin import settings_pages
from webstore.admin.layout import csrf_field
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/settings/gateways",
    "saveGateways",
    # Seals the Stripe secrets.
    WRITE | {Access.WEBHOOK_KEY, Access.GATEWAY_KEY},
    "Save the payment gateways",
    html=True,
    timeout_seconds=29,  # the catalog's export and import,
    capability=Capability.SETTINGS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    return form(
        session,
        lambda: settings_pages.save_gateways_action(
            svc, session.account_id, fields, actor=session.email, now=svc.now()
        ),
        lambda error: settings_pages.settings_again(
            svc, session.account_id, "gateways", fields, error, csrf=csrf_field(session)
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
