"""GET /shop/editor — one shop template's editor: its text, preview, save, publish, versions."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import shop_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/shop/editor",
    "getShopTemplateEditor",
    READ,
    "A shop template's editor (preview, save, publish) and its versions (rollback)",
    html=True,
    capability=Capability.SETTINGS_READ,
)


async def endpoint(
    svc: ServicesDep,
    session: StaffDep,
    name: str = Query("", max_length=80),
    start_from: int | None = Query(None, alias="from", ge=1, le=999_999),
    done: str = Query("", max_length=200),
) -> Response:
    return show(
        session,
        lambda: shop_pages.editor(
            svc,
            session.account_id,
            name,
            csrf=lambda: session.csrf_token if session.may(Capability.SETTINGS_WRITE) else None,
            start_from=start_from,
        ),
        done=done,
    )


handler = lambda_handler(ROUTE, endpoint)
