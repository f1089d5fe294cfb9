"""The players pages' bodies, rendered from templates/panel/players/: lookup, one player with
their purchase history, and bans (list, ban form, lift). HTTP-free."""

from __future__ import annotations

from webstore.admin.players import BanPage, PlayerHistory
from webstore.admin.views.money import body, money, path, with_query
from webstore.html import Markup


def lookup_body() -> Markup:
    return body("panel/players/lookup.html")


def player_body(history: PlayerHistory, *, cursor: str | None, csrf: Markup | None, done: str = "") -> Markup:
    """The lookup form, then a player and one page of their payments; the ban form when the
    role may ban."""
    player = history.player
    totals = ", ".join(money(amount, currency) for currency, amount in sorted(player.totals.items()))
    older = (
        with_query(path("players", player.username), {"cursor": history.next_cursor})
        if history.next_cursor
        else ""
    )
    return body(
        "panel/players/player.html",
        history=history,
        totals=totals or "—",
        cursor=cursor,
        older=older,
        csrf=csrf,
        done=done,
    )


def bans_body(page: BanPage, *, csrf: Markup | None, done: str = "") -> Markup:
    """The store's bans, newest first; the ban form and a lift button each when the role may."""
    return body("panel/players/bans.html", page=page, csrf=csrf, done=done)
