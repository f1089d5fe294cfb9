"""The players pages (`/players`, `/players/{player}`, `/bans`): the lookup, one player with
their purchases, the store's bans, and the ban and lift forms. HTTP-free; the handlers add the
session and the shell."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime

from webstore.admin import players
from webstore.admin.flow import PanelPage
from webstore.admin.views import players as player_views
from webstore.admin.views.money import path, titled
from webstore.errors import DomainError
from webstore.html import Markup
from webstore.services import Services

DONE = {
    "banned": "Banned.",
    "lifted": "The ban is lifted.",
}


def players_page(services: Services, account_id: int, query: Mapping[str, str]) -> str | PanelPage:
    """The lookup form; a looked-up name or UUID goes to its player's page (a URL to go to)."""
    wanted = (query.get("player") or "").strip()
    if wanted:
        return path("players", wanted)
    return titled("Players", player_views.lookup_body(), "players")


def player_page(
    services: Services,
    account_id: int,
    ref: str,
    query: Mapping[str, str],
    *,
    csrf: Callable[[], Markup | None],
) -> PanelPage:
    cursor = query.get("cursor") or None
    history = players.player_history(services, account_id, ref, cursor)
    body = player_views.player_body(
        history, cursor=cursor, csrf=csrf(), done=DONE.get(query.get("done") or "", "")
    )
    return titled(f"Player {history.player.username}", body, "players")


def bans_page(
    services: Services,
    account_id: int,
    query: Mapping[str, str],
    *,
    csrf: Callable[[], Markup | None],
    error: DomainError | None = None,
) -> PanelPage:
    page = players.bans_page(services, account_id, query.get("below") or None)
    body = player_views.bans_body(page, csrf=csrf(), done=DONE.get(query.get("done") or "", ""))
    return titled("Bans", body, "players", error=error)


def ban_action(
    services: Services, account_id: int, form: Mapping[str, str], *, by: str, now: datetime
) -> str:
    players.ban(services, account_id, form, by, now)
    return "/bans?done=banned"


def lift_action(services: Services, account_id: int, ban_id: str, *, by: str, now: datetime) -> str:
    """Lift (404 for what is no ban of this store, or was lifted already)."""
    players.lift(services, account_id, ban_id, by, now)
    return "/bans?done=lifted"
