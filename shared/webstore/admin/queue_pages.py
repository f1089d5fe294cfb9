"""The command queue by player (`/queue`) and its form (send a payment's commands again)."""

from __future__ import annotations

import secrets
from string import Template
from urllib.parse import urlencode

from webstore.admin import queue as queue_cases
from webstore.admin import servers as server_cases
from webstore.admin.flow import PanelPage, actor, done_at
from webstore.admin.layout import SWAP_CONTENT, csrf_field
from webstore.admin.roles import Capability
from webstore.admin.server_pages import _commands_table, _ids
from webstore.admin.sessions import StaffSession
from webstore.services import Services
from webstore.storefront.pages import Safe, fill

NOTHING = Safe("")


def _page(title: str, body: Safe, section: str) -> PanelPage:
    return PanelPage(title, body, section)


# --- the queue by player ----------------------------------------------------------------------

_QUEUE = Template(
    """<h1>Command queue</h1>
<form method="get" action="/queue" class="search" """
    + SWAP_CONTENT
    + """>
<label>Player (name or UUID) <input name="player" value="$player" maxlength="64"></label>
<button type="submit">Show</button></form>
$result
$servers
$resend"""
)
_SERVER_LINKS = Template("""<h2>By server</h2>
<ul>
$items</ul>""")
_SERVER_LINK = Template('<li><a href="/servers/$id">$name</a></li>\n')
_PLAYER_RESULT = Template("""<h2>Waiting for $player</h2>
$commands""")
_RESEND = Template("""<h2>Send a payment's commands again</h2>
<p class="help">Delivered commands are gone from the queue; their payment keeps them. Name the
payment and the command ids to queue them again under new ids.</p>
<form method="post" action="/queue/resend">$csrf
<input type="hidden" name="request_id" value="$request_id">
<label>Transaction <input name="transaction" required maxlength="32" placeholder="tbx-…"></label>
<label>Command ids <input name="command_ids" required maxlength="400" placeholder="12, 13"></label>
<button type="submit">Resend</button></form>
""")


def queue_page(
    services: Services, session: StaffSession, player: str, cursor: str | None, done: str = ""
) -> PanelPage:
    """Round trips: the player's pointer, then their GSI1 page (and the session); without a
    player, the servers to choose from."""
    result = servers = NOTHING
    if not player.strip():
        items = "".join(
            fill(_SERVER_LINK, id=str(s.id), name=s.name)
            for s in server_cases.servers(services, session.account_id)
        )
        servers = fill(_SERVER_LINKS, items=Safe(items))
    else:
        username_id = queue_cases.find_player(services, session.account_id, player)
        page = queue_cases.player_queue(services, session.account_id, username_id, cursor or None)
        more = (
            f"/queue?{urlencode({'player': player, 'cursor': page.next_cursor})}"
            if page.next_cursor
            else None
        )
        result = fill(
            _PLAYER_RESULT,
            player=player,
            commands=_commands_table(page.commands, selectable=False, more=more),
        )
    resend = (
        fill(_RESEND, csrf=csrf_field(session), request_id=secrets.token_hex(16))
        if session.may(Capability.QUEUE_WRITE)
        else NOTHING
    )
    body = fill(_QUEUE, player=player, result=result, servers=servers, resend=resend)
    return _page("Command queue", body, "queue")


def resend_commands(services: Services, session: StaffSession, form: dict[str, str]) -> PanelPage | str:
    queued = queue_cases.resend_commands(
        services,
        session.account_id,
        form.get("transaction", "").strip(),
        _ids(form.get("command_ids", "")),
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
