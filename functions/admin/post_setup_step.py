"""POST /setup/{step} — one setup step's form (through the use case of the panel's own page
for it), or `skip` the step or the setup; the form again with why when refused."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.deps import ServicesDep
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.admin import setup_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/setup/{step}",
    "saveSetupStep",
    # The catalog's import keeps webhook secrets sealed (as the catalog's own form).
    WRITE | {Access.WEBHOOK_KEY},
    "Save a setup step (form post), or skip it or the setup",
    html=True,
    timeout_seconds=29,  # the catalog's export and import
    capability=Capability.CATALOG_WRITE,
)


async def endpoint(step: str, svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    return form(
        session,
        lambda: setup_pages.save_action(svc, session, step, fields, now=svc.now()),
        lambda error: setup_pages.setup_page(svc, session, step, typed=fields, error=error),
    )


handler = lambda_handler(ROUTE, endpoint)
