"""GET /catalog/{section} — one page of a catalog section (categories: their tree), 50 a
page in id order, paged in the database (`after`: the last id shown)."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import catalog_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/catalog/{section}",
    "listCatalogSection",
    READ,
    "A catalog section",
    html=True,
    capability=Capability.CATALOG_READ,
)


async def endpoint(
    section: str,
    svc: ServicesDep,
    session: StaffDep,
    after: str | None = Query(None, max_length=12),
    done: str = Query("", max_length=200),
) -> Response:
    return show(
        session,
        lambda: catalog_pages.list_page(
            svc, session.account_id, section, after, may_write=lambda: session.may(Capability.CATALOG_WRITE)
        ),
        done=done,
    )


handler = lambda_handler(ROUTE, endpoint)
