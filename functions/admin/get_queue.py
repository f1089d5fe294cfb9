"""GET /queue — a player's waiting commands on every server."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import queue_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/queue",
    "getPlayerQueue",
    READ,
    "A player's waiting commands on every server",
    html=True,
    capability=Capability.QUEUE_READ,
)


async def endpoint(
    svc: ServicesDep,
    session: StaffDep,
    player: str = Query("", max_length=64),
    cursor: str = Query("", max_length=120),
    done: str = Query("", max_length=200),
) -> Response:
    return show(session, lambda: queue_pages.queue_page(svc, session, player, cursor), done=done)


handler = lambda_handler(ROUTE, endpoint)
