"""POST /settings/steam — a Steam store's Steam Web API key (the Steam sign-in reads persona
names with it): checked, sealed, write-only (blank: kept; `remove=1`: removed)."""

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
    "/settings/steam",
    "saveSteamApiKey",
    # Seals the key with the store secrets' key.
    WRITE | {Access.GATEWAY_KEY},
    "Save the Steam Web API key",
    html=True,
    capability=Capability.SETTINGS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    return form(
        session,
        lambda: settings_pages.save_steam_key_action(
            svc, session.account_id, fields, actor=session.email, now=svc.now()
        ),
        lambda error: settings_pages.settings_again(
            svc, session.account_id, "steam", fields, error, csrf=csrf_field(session)
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
