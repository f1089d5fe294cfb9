"""POST /settings/gateways — the Stripe keys and the sandbox switch; the secrets are
write-only (blank: kept)."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep
from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.admin import catalog_pages

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/settings/gateways",
    "saveGateways",
    # Seals the Stripe secrets.
    WRITE | {Access.WEBHOOK_KEY, Access.GATEWAY_KEY},
    "Save the payment gateways",
    html=True,
    timeout_seconds=29,  # the catalog's export and import
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep) -> Response:
    return render(lambda: catalog_pages.save_settings(svc, session, "gateways", "", form))


handler = lambda_handler(ROUTE, endpoint)
