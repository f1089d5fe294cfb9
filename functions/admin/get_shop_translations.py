"""GET /shop/translations — the owner's translation files of the shop, one language in the editor."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import shop_translation_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/shop/translations",
    "getShopTranslations",
    READ,
    "The shop's translation files (the owner's wording per language); `lang` opens one in the editor",
    html=True,
    capability=Capability.SETTINGS_READ,
)


async def endpoint(
    svc: ServicesDep,
    session: StaffDep,
    lang: str = Query("", max_length=16),
    done: str = Query("", max_length=200),
) -> Response:
    return show(
        session,
        lambda: shop_translation_pages.page(
            svc,
            session.account_id,
            lang,
            csrf=lambda: session.csrf_token if session.may(Capability.SETTINGS_WRITE) else None,
        ),
        done=done,
    )


handler = lambda_handler(ROUTE, endpoint)
