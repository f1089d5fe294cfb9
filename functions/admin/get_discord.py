"""GET /discord — panel → Discord: the application and bot, roles per package, the delivery log."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import discord_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/discord",
    "getDiscord",
    READ,
    "Discord: the bot, roles per package and the delivery log",
    html=True,
    capability=Capability.SETTINGS_READ,
)


async def endpoint(svc: ServicesDep, session: StaffDep, done: str = Query("", max_length=200)) -> Response:
    return show(session, lambda: discord_pages.discord_page(svc, session), done=done)


handler = lambda_handler(ROUTE, endpoint)
