"""POST /bans/{ban_id}/lift — lift a ban (the plugins stop enforcing it; the player's ban count
goes down); 303 to the bans. A ban lifted already is 404."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, respond
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import money_pages
from webstore.admin.roles import Capability
from webstore.storefront.pages import PageResult

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


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep, ban_id: str) -> Response:
    def act() -> PageResult:
        return PageResult(
            redirect=money_pages.lift_action(svc, session.account_id, ban_id, by=session.email, now=svc.now())
        )

    return respond(session, act)


handler = lambda_handler(ROUTE, endpoint)
