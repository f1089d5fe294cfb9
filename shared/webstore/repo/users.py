"""The platform's player registry: one stable `username_id` and UUID per username.

The demo platform identifies players by username. Ids come from a global sequence and are
bound to the (case-insensitive) username by a conditional put, so concurrent first logins of
one name agree on one id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from webstore import keys
from webstore.db import ConditionFailed, Item, Table
from webstore.errors import Conflict, Invalid

USERNAME = re.compile(r"^[A-Za-z0-9_]{3,16}$")  # Minecraft's rule for Java Edition names


@dataclass(frozen=True)
class User:
    id: int
    username: str
    uuid: str


def user_of_item(item: Item) -> User:
    return User(int(item["username_id"]), item["username"], item["uuid"])


def check_username(username: str, field: str = "username") -> str:
    username = (username or "").strip()
    if not USERNAME.match(username):
        raise Invalid("A username is 3 to 16 letters, digits or underscores", field=field)
    return username


class UserRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    def find(self, username: str) -> User | None:
        item = self.table.get(keys.user_key(username))
        return user_of_item(item) if item else None

    def ensure(self, username: str) -> User:
        """The user of this name, registering it on first sight (at most 1 read + 2 writes)."""
        username = check_username(username)
        existing = self.find(username)
        if existing:
            return existing
        result = self.table.update(
            keys.USERS_SEQUENCE_KEY,
            "ADD #n :one",
            names={"#n": "next"},
            values={":one": 1},
            return_values="UPDATED_NEW",
        )
        user_id = int(result["next"])
        if user_id > keys.INT32_MAX:
            raise Conflict("The player id space is exhausted")
        user = User(user_id, username, keys.player_uuid(username))
        try:
            self.table.put(
                {
                    **keys.user_key(username),
                    "entity": "user",
                    "username_id": user.id,
                    "username": user.username,
                    "uuid": user.uuid,
                },
                condition="attribute_not_exists(PK)",
            )
        except ConditionFailed:
            raced = self.find(username)  # someone registered it first: theirs stands
            if raced is None:
                raise
            return raced
        return user
