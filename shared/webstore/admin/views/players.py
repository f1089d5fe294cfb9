"""The players pages' bodies: lookup, one player with their purchase history, and bans (list,
ban form, lift). HTTP-free."""

from __future__ import annotations

from string import Template

from webstore.admin.layout import SWAP_CONTENT
from webstore.admin.players import BanPage, PlayerHistory
from webstore.admin.views.money import (
    facts,
    hidden,
    money,
    notice,
    path,
    post_form,
    rows,
    table,
    text_input,
    when,
    with_query,
)
from webstore.admin.views.payments import payments_table
from webstore.storefront.pages import Safe, fill

LOOKUP = Safe(
    '<form method="get" action="/players" class="search" role="search" ' + SWAP_CONTENT + ">"
    '<label for="player">Name or UUID</label><input id="player" name="player" required maxlength="64">'
    '<button type="submit">Look up</button></form>'
)


def player_body(history: PlayerHistory, *, cursor: str | None, csrf: Safe | None, done: str = "") -> Safe:
    """The lookup form, then a player and one page of their payments; the ban form when the
    role may ban."""
    player = history.player
    totals = ", ".join(money(amount, currency) for currency, amount in sorted(player.totals.items())) or "—"
    summary = facts(
        [
            ("Name", player.username),
            ("UUID", player.uuid or "—"),
            ("E-mail", player.email or "—"),
            ("Payments", str(player.payments)),
            ("Spent", totals),
            ("Chargebacks", str(player.chargebacks)),
            ("Bans", str(player.bans)),
        ]
    )
    base = path("players", player.username)
    pager = []
    if cursor:
        pager.append(fill(Template('<a href="$href">Newest</a>'), href=base))
    if history.next_cursor:
        pager.append(
            fill(
                Template('<a id="next" href="$href">Older payments</a>'),
                href=with_query(base, {"cursor": history.next_cursor}),
            )
        )
    parts = [
        LOOKUP,
        notice(done),
        summary,
        Safe("<h2>Purchases</h2>"),
        payments_table(history.payments, empty="No payments."),
        Safe('<nav class="pages">' + " ".join(pager) + "</nav>"),
    ]
    if csrf is not None:
        fields = hidden("user", player.uuid or player.username)
        reason = text_input("reason", "Reason")
        parts.append(
            post_form(
                "/bans", f"Ban {player.username}", csrf, Safe(fields + reason), css="action", danger=True
            )
        )
    return Safe("".join(parts))


def bans_body(page: BanPage, *, csrf: Safe | None, done: str = "") -> Safe:
    """The store's bans, newest first; the ban form and a lift button each when the role may."""
    cells: list[list[str | Safe]] = []
    for ban in page.bans:
        row: list[str | Safe] = [when(ban.time), ban.ign or "—", ban.uuid or "—", ban.ip or "—", ban.reason]
        if csrf is not None:
            row.append(post_form(f"/bans/{ban.id}/lift", "Lift", csrf))
        cells.append(row)
    headings = ["Since", "Player", "UUID", "Address", "Reason"] + (
        ["" if csrf is None else "Lift"] if csrf else []
    )
    parts = [notice(done), table(headings, rows(cells), empty="No bans.")]
    if page.next_below is not None:
        parts.append(
            fill(
                Template('<nav class="pages"><a id="next" href="/bans?below=$below">Older</a></nav>'),
                below=str(page.next_below),
            )
        )
    if csrf is not None:
        form = Safe(
            text_input("user", "Player (name or UUID)")
            + text_input("ip", "Address (optional: else where they last joined from)")
            + text_input("reason", "Reason")
        )
        parts.append(
            Safe("<h2>Ban a player</h2>" + post_form("/bans", "Ban", csrf, form, css="action", danger=True))
        )
    return Safe("".join(parts))
