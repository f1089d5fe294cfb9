"""POST /bans — ban a player by name or UUID (and an address), as the operator's POST /bans;
303 to the bans, or the bans again with why it was refused."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form, forms_for
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import player_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/bans",
    "banPlayer",
    WRITE,
    "Ban a player",
    html=True,
    capability=Capability.PLAYERS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    return form(
        session,
        lambda: player_pages.ban_action(svc, session.account_id, fields, by=session.email, now=svc.now()),
        lambda error: player_pages.bans_page(
            svc, session.account_id, {}, csrf=forms_for(session, Capability.PLAYERS_WRITE), error=error
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
