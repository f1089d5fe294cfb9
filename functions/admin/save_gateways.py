"""POST /settings/gateways — the Stripe keys and the sandbox switch; the secrets are
write-only (blank: kept)."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, respond
from functions.deps import ServicesDep
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.admin import catalog_pages
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


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep) -> Response:
    return respond(session, lambda: catalog_pages.save_settings(svc, session, "gateways", "", form))


handler = lambda_handler(ROUTE, endpoint)
