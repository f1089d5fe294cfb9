"""POST /bans/{ban_id}/lift — lift a ban (the plugins stop enforcing it; the player's ban count
goes down); 303 to the bans. A ban lifted already is 404."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep
from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import money_pages
from webstore.admin.roles import Capability, require
from webstore.storefront.pages import PageResult

ROUTE = Route(Interface.ADMIN, "POST", "/bans/{ban_id}/lift", "liftBan", WRITE, "Lift a ban", html=True)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep, ban_id: str) -> Response:
    def act() -> PageResult:
        require(session, Capability.PLAYERS_WRITE)
        return PageResult(
            redirect=money_pages.lift_action(svc, session.account_id, ban_id, by=session.email, now=svc.now())
        )

    return render(act)


handler = lambda_handler(ROUTE, endpoint)
