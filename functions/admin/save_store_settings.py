"""POST /settings — save the store section through the catalog file's validation and import."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.deps import ServicesDep
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.admin import settings_pages
from webstore.admin.layout import csrf_field
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/settings",
    "saveStoreSettings",
    # The import keeps webhook secrets sealed.
    WRITE | {Access.WEBHOOK_KEY},
    "Save the store settings",
    html=True,
    timeout_seconds=29,  # the catalog's export and import,
    capability=Capability.SETTINGS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    return form(
        session,
        lambda: settings_pages.save_store_action(
            svc, session.account_id, fields, actor=session.email, now=svc.now()
        ),
        lambda error: settings_pages.settings_again(
            svc, session.account_id, "store", fields, error, csrf=csrf_field(session)
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
