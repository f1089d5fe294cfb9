"""Bans: the latest ones, and banning a player by username or UUID (optionally an address),
counted on the player's record in the same transaction."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable

from webstore.errors import Invalid, NotFound
from webstore.identity.identify import identify_in_store
from webstore.operator import schemas, views
from webstore.operator.player_events import last_seen_ref
from webstore.operator.players import is_uuid, normalize_uuid
from webstore.players import Player
from webstore.repo import Transaction, start_read
from webstore.repo.audit_log import Audit
from webstore.repo.bans import Ban, BanRepository
from webstore.repo.player_events import PlayerEventRepository
from webstore.repo.players import PlayerRepository
from webstore.repo.sequences import IdAllocation, SequenceRepository
from webstore.repo.users import User
from webstore.services import Services

BANS_PER_PAGE = 100


def list_bans(services: Services, account_id: int) -> list[schemas.Ban]:
    """The latest bans, newest first (one Query, at most 100)."""
    return [views.ban_view(b) for b in BanRepository(services.table).latest(account_id, BANS_PER_PAGE)]


def ban_address(value: str | None) -> str:
    """The address to ban in its canonical form ('' for none). Pure."""
    if not value:
        return ""
    try:
        return str(ipaddress.ip_address(value.strip()))
    except ValueError as error:
        raise Invalid("ip must be an IPv4 or IPv6 address", field="ip") from error


def _banned_player(
    services: Services, account_id: int, ref: str, seen_ref: str | None
) -> tuple[User | None, str, Player | None, str]:
    """Who a ban names: the platform user (if known), the UUID, the account's player record, and
    (when `seen_ref` is given) the address the player last joined from, read with the record.
    A UUID nobody bought with is banned as given; a username is registered if new."""
    players = PlayerRepository(services.table)
    events = PlayerEventRepository(services.table)
    if is_uuid(ref):
        uuid_value = normalize_uuid(ref)
        username_id = players.id_by_uuid(account_id, uuid_value)
        player, seen = events.player_and_last_seen(account_id, username_id, seen_ref)
        user = User(player.username_id, player.username, uuid_value) if player else None
        return user, uuid_value, player, seen.ip if seen else ""
    user = identify_in_store(services, account_id, ref, field="user")
    player, seen = events.player_and_last_seen(account_id, user.id, seen_ref)
    return user, user.uuid, player, seen.ip if seen else ""


def create_ban(
    services: Services,
    account_id: int,
    body: schemas.BanCreate,
    audit: Callable[[Ban], Audit] | None = None,
) -> schemas.Ban:
    """Ban a player by username or UUID, and an IP: the one given, else the player's last known
    one from the join events (if any); counts on the player record. The ban's id is taken in
    the same transaction (the id sequence is read beside the player lookup), as is the audit
    entry `audit(ban)` names (the panel's)."""
    ip = ban_address(body.ip)
    sequences = SequenceRepository(services.table)
    ids_read = start_read(sequences.read, account_id)
    # The official plugin sends ip "": ban the address the player last joined from (POST /events),
    # read in the same request as the player record.
    user, uuid_value, player, last_ip = _banned_player(
        services, account_id, body.user, None if ip else last_seen_ref(body.user)
    )
    ip = ip or last_ip
    now = services.now()

    def build(ids: IdAllocation) -> tuple[Transaction, Ban]:
        ban = Ban(
            id=ids.take("ban")[0],
            time=now,
            ip=ip,
            payment_email=player.email if player else "",
            reason=body.reason,
            ign=user.username if user else "",
            uuid=uuid_value,
            username_id=user.id if user else None,
        )
        tx = services.transaction()
        BanRepository(services.table).add(tx, account_id, ban)
        if user is not None:
            PlayerRepository.add_player(tx, account_id, user, email="", now=now, counters={"bans": 1})
        if audit is not None:
            audit(ban).add_to(tx, account_id)
        return tx, ban

    return views.ban_view(sequences.write(account_id, build, first_read=ids_read))


def lift_ban(
    services: Services, account_id: int, ban_id: int, audit: Callable[[Ban], Audit] | None = None
) -> Ban:
    """Lift a ban: the ban removed (so GET /bans no longer lists it to the plugins) and its
    player's ban count lowered, in one transaction conditional on the ban still existing (a
    lift posted twice lifts once; the second is 404), with the audit entry `audit(ban)` names.
    The lifted ban is returned."""
    bans = BanRepository(services.table)
    ban = bans.get(account_id, ban_id)
    if ban is None:
        raise NotFound("Ban not found")
    username_id = ban.username_id
    if username_id is None and ban.uuid:  # a ban from before the id was kept: by its UUID
        username_id = PlayerRepository(services.table).id_by_uuid(account_id, ban.uuid)
    tx = services.transaction()
    BanRepository.add_lift(tx, account_id, ban)
    if username_id is not None:
        PlayerRepository.add_counters(tx, account_id, username_id, {"bans": -1})
    if audit is not None:
        audit(ban).add_to(tx, account_id)
    tx.commit()
    return ban
