"""POST /bans — ban a player by name or UUID (and an address), as the operator's POST /bans;
303 to the bans, or the bans again with why it was refused."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, respond
from functions.admin_money import forms_for, outcome
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import money_pages
from webstore.admin.roles import Capability
from webstore.storefront.pages import PageResult

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


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep) -> Response:
    def act() -> PageResult:
        return outcome(
            money_pages.ban_action(svc, session.account_id, form, by=session.email, now=svc.now()),
            session,
            lambda refusal: money_pages.bans_page(
                svc,
                session.account_id,
                {},
                csrf=forms_for(session, Capability.PLAYERS_WRITE),
                refusal=refusal,
            ),
        )

    return respond(session, act)


handler = lambda_handler(ROUTE, endpoint)
