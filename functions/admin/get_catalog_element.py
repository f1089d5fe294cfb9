"""GET /catalog/{section}/{element} — one element's form (`new`: an empty one), with the
catalog revision it is read at."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import catalog_element_pages
from webstore.admin.flow import PanelPage
from webstore.admin.layout import csrf_field
from webstore.admin.roles import Capability
from webstore.errors import Forbidden

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/catalog/{section}/{element}",
    "getCatalogElement",
    READ,
    "A catalog element's form",
    html=True,
    capability=Capability.CATALOG_READ,
)


async def endpoint(
    section: str,
    element: str,
    svc: ServicesDep,
    session: StaffDep,
    done: str = Query("", max_length=200),
) -> Response:
    def page() -> PanelPage:
        may_write = lambda: session.may(Capability.CATALOG_WRITE)  # noqa: E731
        shown = catalog_element_pages.element_page(
            svc, session.account_id, section, element, csrf=csrf_field(session), may_write=may_write
        )
        if element == "new" and not may_write():  # nothing to show a role that may not add
            raise Forbidden("Your role may not add to the catalog; ask the store's owner.")
        return shown

    return show(session, page, done=done)


handler = lambda_handler(ROUTE, endpoint)
