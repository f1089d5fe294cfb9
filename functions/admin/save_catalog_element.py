"""POST /catalog/{section}/{element} — save one element (`new`: create it) through the catalog
file's validation and import; the form again with the import's message when refused."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, respond
from functions.deps import ServicesDep
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.admin import catalog_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/catalog/{section}/{element}",
    "saveCatalogElement",
    # The import keeps webhook secrets sealed.
    WRITE | {Access.WEBHOOK_KEY},
    "Save a catalog element",
    html=True,
    timeout_seconds=29,  # the catalog's export and import,
    capability=Capability.CATALOG_WRITE,
)


async def endpoint(
    section: str, element: str, svc: ServicesDep, session: StaffDep, form: FormDep
) -> Response:
    return respond(session, lambda: catalog_pages.save(svc, session, section, element, form))


handler = lambda_handler(ROUTE, endpoint)
