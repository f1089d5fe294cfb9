"""The command queue by player (`/queue`) and its form (send a payment's commands again)."""

from __future__ import annotations

import secrets
from urllib.parse import urlencode

from webstore.admin import queue as queue_cases
from webstore.admin import servers as server_cases
from webstore.admin.flow import PanelPage, actor, done_at
from webstore.admin.layout import csrf_field
from webstore.admin.roles import Capability
from webstore.admin.server_pages import command_ids
from webstore.admin.sessions import StaffSession
from webstore.html import fragment
from webstore.services import Services


def queue_page(
    services: Services, session: StaffSession, player: str, cursor: str | None, done: str = ""
) -> PanelPage:
    """Round trips: the player's pointer, then their GSI1 page (and the session); without a
    player, the servers to choose from."""
    page = more = None
    servers = []
    if not player.strip():
        servers = server_cases.servers(services, session.account_id)
    else:
        username_id = queue_cases.find_player(services, session.account_id, player)
        page = queue_cases.player_queue(services, session.account_id, username_id, cursor or None)
        if page.next_cursor:
            more = f"/queue?{urlencode({'player': player, 'cursor': page.next_cursor})}"
    body = fragment(
        "panel/queue/queue.html",
        player=player,
        page=page,
        more=more,
        servers=servers,
        csrf=csrf_field(session) if session.may(Capability.QUEUE_WRITE) else None,
        request_id=secrets.token_hex(16),
    )
    return PanelPage("Command queue", body, "queue")


def resend_commands(services: Services, session: StaffSession, form: dict[str, str]) -> PanelPage | str:
    queued = queue_cases.resend_commands(
        services,
        session.account_id,
        form.get("transaction", "").strip(),
        command_ids(form.get("command_ids", "")),
        form.get("request_id", ""),
        actor=actor(session),
        now=services.now(),
    )
    message = (
        f"Queued again as command(s) {', '.join(str(c.id) for c in queued)}"
        if queued
        else "Already resent (this form was sent before)"
    )
    return done_at("/queue", message)
