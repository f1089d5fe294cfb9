"""POST /settings — save the store section through the catalog file's validation and import."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep
from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.admin import catalog_pages

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/settings",
    "saveStoreSettings",
    # The import keeps webhook secrets sealed.
    WRITE | {Access.WEBHOOK_KEY},
    "Save the store settings",
    html=True,
    timeout_seconds=29,  # the catalog's export and import
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep) -> Response:
    return render(lambda: catalog_pages.save_settings(svc, session, "store", "", form))


handler = lambda_handler(ROUTE, endpoint)
