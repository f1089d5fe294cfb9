"""POST /catalog/{section}/{element} — save one element (`new`: create it) through the catalog
file's validation and import; the form again with the import's message when refused."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.deps import ServicesDep
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.admin import catalog_element_pages
from webstore.admin.layout import csrf_field
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
    section: str, element: str, svc: ServicesDep, session: StaffDep, fields: FormDep
) -> Response:
    return form(
        session,
        lambda: catalog_element_pages.save_action(
            svc, session.account_id, section, element, fields, actor=session.email, now=svc.now()
        ),
        lambda error: catalog_element_pages.form_again(
            svc, session.account_id, section, element, fields, error, csrf=csrf_field(session)
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
