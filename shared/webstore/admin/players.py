"""The panel's players: lookup by name or UUID, purchase history (paged), bans (list, create,
lift), each through the operator interface's use cases and repositories.

A player page is 2 round trips whatever the store's size: the name or UUID pointer (GetItem),
then the player item beside one page of their GSI1 partition (docs/data-model.md).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from webstore import keys
from webstore.errors import Invalid, NotFound
from webstore.operator import schemas
from webstore.operator.bans import create_ban, lift_ban
from webstore.operator.players import player_id
from webstore.players import Player
from webstore.repo import start_read
from webstore.repo.audit_log import Audit
from webstore.repo.bans import Ban, BanRepository
from webstore.repo.payment_search import GSI1, PaymentSearchRepository, Source
from webstore.repo.payments import PaymentRecord
from webstore.repo.players import PlayerRepository
from webstore.services import Services

PER_PAGE = 25
BANS_PER_PAGE = 50
_CURSOR = re.compile(r"^PAY#[0-9]{10}$")


@dataclass(frozen=True)
class PlayerHistory:
    player: Player
    payments: list[PaymentRecord]  # newest first
    next_cursor: str | None


def player_history(services: Services, account_id: int, ref: str, cursor: str | None = None) -> PlayerHistory:
    """The player a name or UUID names in this store, and one page of their payments (404 for
    a player who never bought or was banned here)."""
    if cursor is not None and not _CURSOR.match(cursor):
        raise Invalid("cursor is not one this page made; open the player again", field="cursor")
    username_id = player_id(services, account_id, ref)
    players = PlayerRepository(services.table)
    player_read = start_read(players.get, account_id, username_id)
    source = Source(
        keys.payments_of_player(account_id, username_id),
        keys.payment_sk(1),
        keys.payment_sk(keys.INT32_MAX),
        index=GSI1,
    )
    page = PaymentSearchRepository(services.table).page([source], limit=PER_PAGE, cursor=cursor)
    player = player_read.result()
    if player is None:
        raise NotFound("Player not found")
    return PlayerHistory(player, page.payments, page.cursor)


# --- bans -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BanPage:
    bans: list[Ban]
    next_below: int | None  # the id the next page continues below (None: no older)


def bans_page(services: Services, account_id: int, below: str | None = None) -> BanPage:
    """Newest first, BANS_PER_PAGE a page: one Query."""
    below_id = None
    if below:
        if not (below.isascii() and below.isdigit()) or not 1 <= int(below) <= keys.INT32_MAX:
            raise Invalid("below must be a ban id", field="below")
        below_id = int(below)
    bans, more = BanRepository(services.table).older(account_id, below_id, BANS_PER_PAGE)
    return BanPage(bans, more)


def ban_form(fields: Mapping[str, str]) -> schemas.BanCreate:
    """The ban form's fields as the operator's POST /bans body (its limits, 422 naming the field).
    Pure."""
    user = (fields.get("user") or "").strip()
    reason = (fields.get("reason") or "").strip()
    ip = (fields.get("ip") or "").strip()
    if not 1 <= len(user) <= 64:
        raise Invalid("user is a username or UUID (1 to 64 characters)", field="user")
    if len(reason) > 1000:
        raise Invalid("reason is at most 1000 characters", field="reason")
    if len(ip) > 64:
        raise Invalid("ip must be an IPv4 or IPv6 address", field="ip")
    return schemas.BanCreate(user=user, reason=reason, ip=ip or None)


def ban(
    services: Services, account_id: int, fields: Mapping[str, str], by: str, now: datetime
) -> schemas.Ban:
    """Ban a player (and an address: the one given, else where they last joined from), as
    POST /bans does; the audit log names who."""
    return create_ban(
        services, account_id, ban_form(fields), lambda made: _ban_audit(by, "player.ban", made, now)
    )


def lift(services: Services, account_id: int, ban_id: str, by: str, now: datetime) -> Ban:
    """Lift a ban (operator.bans.lift_ban): 404 for an id that is not a ban of this store."""
    if not (ban_id.isascii() and ban_id.isdigit()) or not 1 <= int(ban_id) <= keys.INT32_MAX:
        raise NotFound("Ban not found")
    return lift_ban(
        services, account_id, int(ban_id), lambda lifted: _ban_audit(by, "player.unban", lifted, now)
    )


def _ban_audit(by: str, action: str, ban: Ban, now: datetime) -> Audit:
    """The entry written with the ban or its lift (one transaction)."""
    return Audit(by, action, f"ban {ban.id}: {ban.ign or ban.uuid or ban.ip}", now)
