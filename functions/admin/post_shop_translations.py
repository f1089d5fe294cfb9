"""POST /shop/translations — save a language's translation file (checked first; published at once)."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import shop_translation_pages
from webstore.admin.roles import Capability
from webstore.shop.translations import CODES

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/shop/translations",
    "saveShopTranslations",
    WRITE,
    "Save a language's translation file of the shop: checked (JSON, known texts, placeholders), then served",
    html=True,
    capability=Capability.SETTINGS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    account = session.account_id
    lang = fields.get("lang", "")
    return form(
        session,
        lambda: shop_translation_pages.save_action(svc, account, fields, actor=session.email, now=svc.now()),
        lambda error: shop_translation_pages.page(
            svc,
            account,
            lang if lang in CODES else "",
            csrf=lambda: session.csrf_token,
            typed=fields,
            error=error.detail,
            status=error.status,
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
