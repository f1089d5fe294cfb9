"""Player lookup (GET /user/{user}) and the player references operators send: a UUID, with or
without dashes, or a username."""

from __future__ import annotations

import re

from webstore import keys
from webstore.errors import NotFound
from webstore.operator import schemas, views
from webstore.repo.players import PlayerRepository
from webstore.services import Services

_UUID = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")
PAYMENTS_SHOWN = 100


def is_uuid(value: str) -> bool:
    return _UUID.match(value) is not None


def normalize_uuid(value: str) -> str:
    digits = value.replace("-", "").lower()
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"


def player_id(services: Services, account_id: int, ref: str) -> int:
    """The account's player a reference names: a UUID (dashed or not), the numeric player id
    `/user` answers as `plugin_username_id`, or a username; one GetItem (two for a number that
    is no player's id: a name of digits is still a name)."""
    players = PlayerRepository(services.table)
    username_id: int | None = None
    if is_uuid(ref):
        username_id = players.id_by_uuid(account_id, normalize_uuid(ref))
    elif not 1 <= len(ref) <= 64:
        username_id = None
    else:
        if ref.isascii() and ref.isdigit() and 1 <= int(ref) <= keys.INT32_MAX:
            username_id = int(ref) if players.get(account_id, int(ref)) is not None else None
        if username_id is None:
            username_id = players.id_by_name(account_id, ref)
    if username_id is None:
        raise NotFound("Player not found")
    return username_id


def lookup_player(services: Services, account_id: int, ref: str) -> schemas.PlayerLookup:
    """By UUID or username: a pointer GetItem, then one GSI1 Query (player + latest payments)."""
    players = PlayerRepository(services.table)
    username_id = player_id(services, account_id, ref)
    player, payments = players.with_payments(account_id, username_id, PAYMENTS_SHOWN)
    if player is None:
        raise NotFound("Player not found")
    return views.player_lookup_view(player, payments)
