"""An account's bans: `ACCOUNT#a`/`BAN#{id}`, ids from the account's `ban` sequence, so the
latest bans are the end of one key range."""

from __future__ import annotations

from datetime import datetime

from webstore import keys
from webstore.catalog import Model
from webstore.db import Table, Transaction, from_item, to_item
from webstore.errors import Conflict


class Ban(Model):
    """A player (by name and UUID) and/or an address the store refuses. `ign` is the player's
    name as the operator interface calls it; `payment_email` is the player's last known one."""

    id: int
    time: datetime
    ip: str = ""
    payment_email: str = ""
    reason: str = ""
    ign: str = ""
    uuid: str | None = None


class BanRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    def latest(self, account_id: int, limit: int) -> list[Ban]:
        """The newest `limit` bans, newest first: one Query."""
        items, _ = self.table.query(
            keys.account_pk(account_id),
            sk_between=keys.id_range(keys.ban_sk),
            forward=False,
            limit=limit,
        )
        return [from_item(Ban, i) for i in items]

    def add(self, tx: Transaction, account_id: int, ban: Ban) -> None:
        """Store a new ban in `tx` (its id must be new)."""
        tx.put(
            to_item(ban, keys.account_pk(account_id), keys.ban_sk(ban.id), "ban"),
            condition="attribute_not_exists(PK)",
            fails=Conflict(f"Ban {ban.id} already exists"),
        )
