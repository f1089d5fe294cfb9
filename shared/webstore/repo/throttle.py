"""The brute-force guard's records: failures per caller address in a window (`THROTTLE#…`,
deleted by TTL), and the secret lookup they are read beside.

The guard's writes touch only its scope's `THROTTLE#{scope}#` items (`keys.throttle_prefix`):
that key prefix is all the write access a read-only operator route needs.
"""

from __future__ import annotations

from dataclasses import dataclass

from webstore import keys
from webstore.db import ConditionFailed, Item, Table


@dataclass(frozen=True)
class FailureMark:
    """Wrong credentials from one address in the current window, and when the window ends."""

    failures: int
    expires_at: int

    def blocks(self, now: int, allowed: int) -> bool:
        return self.expires_at > now and self.failures > allowed


def failure_mark(item: Item | None) -> FailureMark | None:
    """The mark of a read `THROTTLE#…` item (None: no failures counted)."""
    if item is None:
        return None
    return FailureMark(int(item.get("failures", 0)), int(item.get("expires_at", 0)))


@dataclass(frozen=True)
class SecretOwner:
    """The account and server a secret hash belongs to."""

    account_id: int
    server_id: int


class ThrottleRepository:
    def __init__(self, table: Table, scope: str) -> None:
        """`scope`: whose failures (webstore.failure_guard: the server secret, the checkout key)."""
        self.table = table
        self.scope = scope

    def mark_key(self, client: str) -> dict[str, str]:
        return keys.throttle_key(self.scope, client)

    def mark(self, client: str) -> FailureMark | None:
        """The caller's failure mark: one GetItem (for a use case with no batch read to join)."""
        return failure_mark(self.table.get(self.mark_key(client)))

    def secret_and_mark(self, secret_hash: str, client: str) -> tuple[SecretOwner | None, FailureMark | None]:
        """Whose secret it is and the caller's failure mark: one BatchGetItem."""
        secret_key = keys.secret_key(secret_hash)
        mark_key = keys.throttle_key(self.scope, client)
        found = {(i["PK"], i["SK"]): i for i in self.table.batch_get([secret_key, mark_key])}
        secret = found.get((secret_key["PK"], secret_key["SK"]))
        mark = found.get((mark_key["PK"], mark_key["SK"]))
        return (
            SecretOwner(int(secret["account_id"]), int(secret["server_id"])) if secret else None,
            failure_mark(mark),
        )

    def record_failure(self, client: str, now: int, window: int) -> FailureMark:
        """Count one failure in the address's window (ADD; a lapsed window starts over)."""
        key = keys.throttle_key(self.scope, client)
        try:
            result = self.table.update(
                key,
                "ADD failures :one SET expires_at = if_not_exists(expires_at, :until), entity = :entity",
                condition="attribute_not_exists(expires_at) OR expires_at > :now",
                values={":one": 1, ":until": now + window, ":now": now, ":entity": "throttle"},
                return_values="ALL_NEW",
            )
            return FailureMark(int(result["failures"]), int(result["expires_at"]))
        except ConditionFailed:
            pass
        # The old window lapsed (TTL deletion lags): start a new one.
        self.table.put({**key, "entity": "throttle", "failures": 1, "expires_at": now + window})
        return FailureMark(1, now + window)
