"""POST /settings/sidebar/{position} — add (`new`), replace or remove (`delete=1`) one sidebar
module."""

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
    "/settings/sidebar/{position}",
    "saveSidebarModule",
    # The import keeps webhook secrets sealed.
    WRITE | {Access.WEBHOOK_KEY},
    "Save a sidebar module",
    html=True,
    timeout_seconds=29,  # the catalog's export and import,
    capability=Capability.SETTINGS_WRITE,
)


async def endpoint(position: str, svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    return form(
        session,
        lambda: settings_pages.save_sidebar_action(
            svc, session.account_id, position, fields, actor=session.email, now=svc.now()
        ),
        lambda error: settings_pages.settings_again(
            svc, session.account_id, f"sidebar:{position}", fields, error, csrf=csrf_field(session)
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
