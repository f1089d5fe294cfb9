"""POST /settings/sidebar/{position} — add (`new`), replace or remove (`delete=1`) one sidebar
module."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, respond
from functions.deps import ServicesDep
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.admin import catalog_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/settings/sidebar/{position}",
    "saveSidebarModule",
    # The import keeps webhook secrets sealed.
    WRITE | {Access.WEBHOOK_KEY},
    "Save a sidebar module",
    html=True,
    timeout_seconds=29,  # the catalog's export and import,
    capability=Capability.SETTINGS_WRITE,
)


async def endpoint(position: str, svc: ServicesDep, session: StaffDep, form: FormDep) -> Response:
    return respond(session, lambda: catalog_pages.save_settings(svc, session, "sidebar", position, form))


handler = lambda_handler(ROUTE, endpoint)
