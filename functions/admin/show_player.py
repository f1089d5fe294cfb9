"""GET /players/{player} — a player (by name or UUID) with their purchase history, a page at a
time, and the ban form for a role that may ban."""

from fastapi import Request
from fastapi.responses import Response

from functions.admin_deps import StaffDep, forms_for, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import player_pages
from webstore.admin.roles import Capability

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
    query = dict(request.query_params.items())
    return show(
        session,
        lambda: player_pages.player_page(
            svc, session.account_id, player, query, csrf=forms_for(session, Capability.PLAYERS_WRITE)
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
