"""POST /discord/reconcile — "Reconcile now" (every linked player) or "Retry now" (`player`): roles
read from Discord and repaired (form post)."""

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
    "/discord/reconcile",
    "reconcileDiscord",
    # Opens the bot token and players' access tokens (the stage key); writes the applied roles
    # and the delivery log.
    frozenset({Access.TABLE_READ, Access.TABLE_WRITE, Access.WEBHOOK_KEY}),
    "Reconcile players' Discord roles now (form post)",
    html=True,
    capability=Capability.SETTINGS_WRITE,
    timeout_seconds=30,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    return form(
        session,
        lambda: discord_pages.reconcile(svc, session, fields, svc.now()),
        lambda error: with_error(discord_pages.discord_page(svc, session, fields), error),
    )


handler = lambda_handler(ROUTE, endpoint)
