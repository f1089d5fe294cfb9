"""GET /players/{player} — a player (by name or UUID) with their purchase history, a page at a
time, and the ban form for a role that may ban."""

from fastapi import Request
from fastapi.responses import Response

from functions.admin_deps import StaffDep, respond
from functions.admin_money import forms_for, in_shell
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import money_pages
from webstore.admin.roles import Capability
from webstore.storefront.pages import PageResult

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/players/{player}",
    "showPlayer",
    READ,
    "One player",
    html=True,
    capability=Capability.PLAYERS_READ,
)


async def endpoint(svc: ServicesDep, session: StaffDep, player: str, request: Request) -> Response:
    def page() -> PageResult:
        query = {k: v for k, v in request.query_params.items()}
        csrf = forms_for(session, Capability.PLAYERS_WRITE)
        return in_shell(money_pages.player_page(svc, session.account_id, player, query, csrf=csrf), session)

    return respond(session, page)


handler = lambda_handler(ROUTE, endpoint)
