"""POST /discord/app — connect the Discord application and bot, checked with Discord (form post)."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.declarations import Access
from functions.deps import ServicesDep
from functions.runtime import Interface, Route, lambda_handler
from webstore.admin import discord_pages
from webstore.admin.flow import with_error
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/discord/app",
    "connectDiscord",
    # Seals the client secret and bot token (and opens the saved ones): the stage key.
    frozenset({Access.TABLE_READ, Access.TABLE_WRITE, Access.WEBHOOK_KEY}),
    "Connect the Discord application and bot (form post)",
    html=True,
    capability=Capability.SETTINGS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    return form(
        session,
        lambda: discord_pages.connect(svc, session, fields),
        lambda error: with_error(discord_pages.discord_page(svc, session, fields), error),
    )


handler = lambda_handler(ROUTE, endpoint)
