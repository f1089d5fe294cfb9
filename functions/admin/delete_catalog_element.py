"""POST /catalog/{section}/{element}/delete — take one element out of the catalog, as a file
that drops it (packages and goals disabled, the rest removed)."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.deps import ServicesDep
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.admin import catalog_element_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/catalog/{section}/{element}/delete",
    "deleteCatalogElement",
    # The import keeps webhook secrets sealed.
    WRITE | {Access.WEBHOOK_KEY},
    "Delete a catalog element",
    html=True,
    timeout_seconds=29,  # the catalog's export and import,
    capability=Capability.CATALOG_WRITE,
)


async def endpoint(
    section: str, element: str, svc: ServicesDep, session: StaffDep, fields: FormDep
) -> Response:
    return form(
        session,
        lambda: catalog_element_pages.delete_action(
            svc, session.account_id, section, element, fields, actor=session.email, now=svc.now()
        ),
        lambda error: catalog_element_pages.not_deleted(section, element, error),
    )


handler = lambda_handler(ROUTE, endpoint)
