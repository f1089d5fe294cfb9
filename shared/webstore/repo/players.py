"""An account's players as the operator reads them: found by name or UUID, with their
latest payments (the player item sorts last on GSI1, after its payments: one Query).

The player records are written by fulfilment, beside the payment that counts on them.
"""

from __future__ import annotations

from decimal import Decimal

from webstore import keys
from webstore.db import GSI1, Item, Table, from_item
from webstore.players import Player
from webstore.repo.payments import PaymentRecord

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
