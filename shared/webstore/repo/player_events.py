"""Join/leave events the plugins report: each request's batch as one compact item with a TTL,
and each player's last known address (for bans that name no IP)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from webstore import keys
from webstore.db import Item, Table
from webstore.players import Player
from webstore.repo.players import player_from_item


@dataclass(frozen=True)
class LastSeen:
    ip: str
    at: int  # epoch seconds of the event


class PlayerEventRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    def record(
        self,
        account_id: int,
        server_id: int,
        received_at: int,
        compact_events: str,
        count: int,
        last_seen: dict[str, LastSeen],
        events_expire_at: int,
        seen_expire_at: int,
    ) -> None:
        """The batch item and one last-seen item per player ref: unconditional puts, 25 a call
        (a repeated batch only rewrites what it wrote)."""
        batch: Item = {
            "PK": keys.events_pk(account_id, server_id),
            "SK": keys.event_batch_sk(received_at, secrets.token_hex(4)),
            "entity": "event_batch",
            "events": compact_events,
            "count": count,
            "expires_at": events_expire_at,
        }
        seen: list[Item] = [
            {
                "PK": keys.account_pk(account_id),
                "SK": keys.last_seen_sk(ref),
                "entity": "last_seen",
                "ip": where.ip,
                "at": where.at,
                "expires_at": seen_expire_at,
            }
            for ref, where in last_seen.items()
        ]
        self.table.batch_write([batch, *seen])

    def batches(self, account_id: int, server_id: int, limit: int = 100) -> list[Item]:
        """The latest batches, newest first (tests and support tools)."""
        items, _ = self.table.query(keys.events_pk(account_id, server_id), forward=False, limit=limit)
        return items

    def last_seen(self, account_id: int, player_ref: str) -> LastSeen | None:
        item = self.table.get(keys.key(keys.account_pk(account_id), keys.last_seen_sk(player_ref)))
        return LastSeen(str(item["ip"]), int(item["at"])) if item else None

    def player_and_last_seen(
        self, account_id: int, username_id: int | None, player_ref: str | None
    ) -> tuple[Player | None, LastSeen | None]:
        """The account's player record and where a player was last seen: one BatchGetItem."""
        pk = keys.account_pk(account_id)
        wanted = []
        if username_id is not None:
            wanted.append(keys.key(pk, keys.player_sk(username_id)))
        if player_ref is not None:
            wanted.append(keys.key(pk, keys.last_seen_sk(player_ref)))
        found = {i["SK"]: i for i in self.table.batch_get(wanted)} if wanted else {}
        player = found.get(keys.player_sk(username_id)) if username_id is not None else None
        seen = found.get(keys.last_seen_sk(player_ref)) if player_ref is not None else None
        return (
            player_from_item(player) if player else None,
            LastSeen(str(seen["ip"]), int(seen["at"])) if seen else None,
        )
