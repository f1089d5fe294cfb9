"""GET /players — look a player up by name or UUID (the form; a lookup goes to the player)."""

from fastapi.responses import Response

from functions.admin_deps import StaffDep, in_shell, respond
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import player_pages
from webstore.admin.roles import Capability
from webstore.html import PageResult

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/players",
    "lookupPlayer",
    READ,
    "Look a player up",
    html=True,
    capability=Capability.PLAYERS_READ,
)


async def endpoint(svc: ServicesDep, session: StaffDep, player: str | None = None) -> Response:
    def page() -> PageResult:
        shown = player_pages.players_page(svc, session.account_id, {"player": player or ""})
        if isinstance(shown, str):
            return PageResult(redirect=shown)
        return in_shell(shown, session)

    return respond(session, page)


handler = lambda_handler(ROUTE, endpoint)
