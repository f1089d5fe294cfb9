"""A store's players (`ACCOUNT#a`/`PLAYER#{id}`, on GSI1 with their payments) and the pointers
by name and by UUID that player lookup starts from. Written with the payments they make (and
the bans that name them); read by the operator's player lookup (the player item sorts last on
GSI1, after its payments: one Query gives a player and their latest payments)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any

from webstore import keys
from webstore.db import GSI1, Item, Table, Transaction, from_item
from webstore.players import Player
from webstore.repo.payments import PaymentRecord
from webstore.repo.users import User

# Counters on the player item (ADD; negative to undo): `payments`, `total_{CURRENCY}`,
# `chargebacks`, `bans`.
Counters = Mapping[str, int | Decimal]


TOTAL_PREFIX = "total_"  # `total_{CURRENCY}`: the player's spend in that currency


def player_from_item(item: Item) -> Player:
    totals = {
        name.removeprefix(TOTAL_PREFIX): Decimal(value)
        for name, value in item.items()
        if name.startswith(TOTAL_PREFIX)
    }
    return Player.model_validate(
        {
            "username_id": item["username_id"],
            "username": item["username"],
            "uuid": item.get("uuid"),
            "email": item.get("email", ""),
            "payments": int(item.get("payments", 0)),
            "chargebacks": int(item.get("chargebacks", 0)),
            "bans": int(item.get("bans", 0)),
            "totals": totals,
        }
    )


class PlayerRepository:
    """The player records: reads for player lookup, writes added to a payment's (or a ban's)
    transaction."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def id_by_name(self, account_id: int, username: str) -> int | None:
        """The player's id from the name pointer (one GetItem)."""
        item = self.table.get(keys.key(keys.account_pk(account_id), keys.player_name_sk(username)))
        return int(item["username_id"]) if item else None

    def id_by_uuid(self, account_id: int, uuid_value: str) -> int | None:
        """The player's id from the UUID pointer (one GetItem)."""
        item = self.table.get(keys.key(keys.account_pk(account_id), keys.player_uuid_sk(uuid_value)))
        return int(item["username_id"]) if item else None

    def get(self, account_id: int, username_id: int) -> Player | None:
        item = self.table.get(keys.key(keys.account_pk(account_id), keys.player_sk(username_id)))
        return player_from_item(item) if item else None

    def with_payments(
        self, account_id: int, username_id: int, limit: int
    ) -> tuple[Player | None, list[PaymentRecord]]:
        """The player and their latest `limit` payments, newest first: one GSI1 Query."""
        items, _ = self.table.query(
            keys.payments_of_player(account_id, username_id), index=GSI1, forward=False, limit=limit + 1
        )
        player = next((i for i in items if i.get("entity") == "player"), None)
        payments = [from_item(PaymentRecord, i) for i in items if i.get("entity") == "payment"][:limit]
        return (player_from_item(player) if player else None), payments

    @staticmethod
    def add_player(
        tx: Transaction,
        account_id: int,
        user: User,
        *,
        email: str,
        now: datetime,
        counters: Counters | None = None,
    ) -> None:
        """The player item (created on first sight, counters added) and its two pointers, in `tx`."""
        pk = keys.account_pk(account_id)
        expression = (
            "SET entity = :e, username_id = :id, username = :name, #uuid = :uuid, GSI1PK = :g, GSI1SK = :gs, "
            "first_seen = if_not_exists(first_seen, :now)"
        )
        values: dict[str, Any] = {
            ":e": "player",
            ":id": user.id,
            ":name": user.username,
            ":uuid": user.uuid,
            ":g": keys.payments_of_player(account_id, user.id),
            ":gs": keys.PLAYER_GSI1SK,
            ":now": now,
        }
        if email:
            expression += ", email = :email"
            values[":email"] = email
        adds = []
        for index, (name, amount) in enumerate((counters or {}).items()):
            if amount:
                adds.append(f"{name} :c{index}")
                values[f":c{index}"] = amount
        if adds:
            expression += " ADD " + ", ".join(adds)
        pointer = {"entity": "player_pointer", "username_id": user.id}
        tx.update(keys.key(pk, keys.player_sk(user.id)), expression, names={"#uuid": "uuid"}, values=values)
        tx.put({**keys.key(pk, keys.player_name_sk(user.username)), **pointer})
        tx.put({**keys.key(pk, keys.player_uuid_sk(user.uuid)), **pointer})

    @staticmethod
    def add_counters(tx: Transaction, account_id: int, username_id: int, counters: Counters) -> None:
        """ADD to an existing player's counters (a payment changed status or owner)."""
        names = list(counters)
        tx.update(
            keys.key(keys.account_pk(account_id), keys.player_sk(username_id)),
            "ADD " + ", ".join(f"{name} :c{i}" for i, name in enumerate(names)),
            values={f":c{i}": counters[name] for i, name in enumerate(names)},
        )
