"""A store's players (`ACCOUNT#a`/`PLAYER#{id}`, on GSI1 with their payments) and the pointers
by name and by UUID that player lookup starts from. Written with the payments they make."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any

from webstore import keys
from webstore.db import TransactAction, Transaction
from webstore.repo.users import User

# Counters on the player item (ADD; negative to undo): `payments`, `total_{CURRENCY}`,
# `chargebacks`, `bans`.
Counters = Mapping[str, int | Decimal]


def player_actions(
    account_id: int,
    user: User,
    *,
    email: str,
    now: datetime,
    counters: Counters | None = None,
) -> list[TransactAction]:
    """The player item (created on first sight, counters added) and its two pointers."""
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
    return [
        TransactAction.update(
            keys.key(pk, keys.player_sk(user.id)), expression, names={"#uuid": "uuid"}, values=values
        ),
        TransactAction.put({**keys.key(pk, keys.player_name_sk(user.username)), **pointer}),
        TransactAction.put({**keys.key(pk, keys.player_uuid_sk(user.uuid)), **pointer}),
    ]


class PlayerRepository:
    """Writes of the player records, added to a payment's transaction."""

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
        for action in player_actions(account_id, user, email=email, now=now, counters=counters):
            tx.add(action)

    @staticmethod
    def add_counters(tx: Transaction, account_id: int, username_id: int, counters: Counters) -> None:
        """ADD to an existing player's counters (a payment changed status or owner)."""
        names = list(counters)
        tx.update(
            keys.key(keys.account_pk(account_id), keys.player_sk(username_id)),
            "ADD " + ", ".join(f"{name} :c{i}" for i, name in enumerate(names)),
            values={f":c{i}": counters[name] for i, name in enumerate(names)},
        )
