"""An account's bans: `ACCOUNT#a`/`BAN#{id}`, ids from the account's `ban` sequence, so the
latest bans are the end of one key range."""

from __future__ import annotations

from datetime import datetime

from webstore import keys
from webstore.catalog import Model
from webstore.db import Table, Transaction, from_item, to_item
from webstore.errors import Conflict, NotFound


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
    # the player record whose `bans` counts it (None: a UUID nobody bought with, or a ban
    # written before the id was kept)
    username_id: int | None = None


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

    def older(self, account_id: int, below: int | None, limit: int) -> tuple[list[Ban], int | None]:
        """Up to `limit` bans with ids below `below` (None: the newest), newest first, and the id
        to continue below (None: no older ones): one Query."""
        last = (below - 1) if below is not None else keys.INT32_MAX
        if last < 1:
            return [], None
        items, _ = self.table.query(
            keys.account_pk(account_id),
            sk_between=(keys.ban_sk(1), keys.ban_sk(last)),
            forward=False,
            limit=limit + 1,
        )
        bans = [from_item(Ban, i) for i in items]
        return bans[:limit], (bans[limit - 1].id if len(bans) > limit else None)

    def add(self, tx: Transaction, account_id: int, ban: Ban) -> None:
        """Store a new ban in `tx` (its id must be new)."""
        tx.put(
            to_item(ban, keys.account_pk(account_id), keys.ban_sk(ban.id), "ban"),
            condition="attribute_not_exists(PK)",
            fails=Conflict(f"Ban {ban.id} already exists"),
        )

    def get(self, account_id: int, ban_id: int) -> Ban | None:
        item = self.table.get(keys.key(keys.account_pk(account_id), keys.ban_sk(ban_id)), consistent=True)
        return from_item(Ban, item) if item else None

    @staticmethod
    def add_lift(tx: Transaction, account_id: int, ban: Ban) -> None:
        """Remove the ban in `tx` (it must still be there: NotFound otherwise, so a ban is
        lifted, and its player's count lowered, once)."""
        tx.delete(
            keys.key(keys.account_pk(account_id), keys.ban_sk(ban.id)),
            condition="attribute_exists(PK)",
            fails=NotFound("Ban not found"),
        )
