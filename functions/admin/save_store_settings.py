"""POST /settings — save the store section through the catalog file's validation and import."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, respond
from functions.deps import ServicesDep
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.admin import catalog_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/settings",
    "saveStoreSettings",
    # The import keeps webhook secrets sealed.
    WRITE | {Access.WEBHOOK_KEY},
    "Save the store settings",
    html=True,
    timeout_seconds=29,  # the catalog's export and import,
    capability=Capability.SETTINGS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep) -> Response:
    return respond(session, lambda: catalog_pages.save_settings(svc, session, "store", "", form))


handler = lambda_handler(ROUTE, endpoint)
