"""POST /bans/{ban_id}/lift — lift a ban (the plugins stop enforcing it; the player's ban count
goes down); 303 to the bans. A ban lifted already is 404."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form, forms_for
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import player_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/bans/{ban_id}/lift",
    "liftBan",
    WRITE,
    "Lift a ban",
    html=True,
    capability=Capability.PLAYERS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep, ban_id: str) -> Response:
    del fields  # checked (CSRF); the ban is named by the path
    return form(
        session,
        lambda: player_pages.lift_action(svc, session.account_id, ban_id, by=session.email, now=svc.now()),
        lambda error: player_pages.bans_page(
            svc, session.account_id, {}, csrf=forms_for(session, Capability.PLAYERS_WRITE), error=error
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
