"""POST /discord/rules — one package's Discord server and roles (form post)."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import discord_pages
from webstore.admin.flow import with_error
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/discord/rules",
    "saveDiscordRule",
    WRITE,
    "Save the Discord roles a package grants (form post)",
    html=True,
    capability=Capability.SETTINGS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    return form(
        session,
        lambda: discord_pages.save_rule(svc, session, fields),
        lambda error: with_error(discord_pages.discord_page(svc, session, fields), error),
    )


handler = lambda_handler(ROUTE, endpoint)
