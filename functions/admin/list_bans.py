"""GET /bans — the store's bans, newest first, with the ban form and a lift button each for a
role that may ban."""

from fastapi import Request
from fastapi.responses import Response

from functions.admin_deps import StaffDep, forms_for, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import player_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN, "GET", "/bans", "listBans", READ, "Bans", html=True, capability=Capability.PLAYERS_READ
)


async def endpoint(svc: ServicesDep, session: StaffDep, request: Request) -> Response:
    query = dict(request.query_params.items())
    return show(
        session,
        lambda: player_pages.bans_page(
            svc, session.account_id, query, csrf=forms_for(session, Capability.PLAYERS_WRITE)
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
