"""The schedule: every future thing (renewal attempt, retry, end of a cancelled period, a timed
package's expiry) is one item, found by Query (docs/subscriptions.md).

Contract: PK `keys.schedule_pk(shard)` (`SCHEDULE_SHARDS` fixed partitions, the shard a stable
hash of account and reference), SK `keys.schedule_sk(due, kind, account, reference)`; body =
ScheduleItem. "Due up to now" is one Query per shard, SK <= now, so a run reads what is due and
nothing else. Processing: `claim` (conditional: not claimed, or the claim expired), act, then the
act's transaction deletes the item (conditional on the claim) and puts the next one.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import datetime

from webstore import keys
from webstore.db import ConditionFailed, Item, Table, Transaction, from_item, to_item
from webstore.recurring import SCHEDULE_SHARDS, ScheduleItem, ScheduleKind, schedule_moment


@dataclass(frozen=True)
class ScheduleKey:
    pk: str
    sk: str

    def as_key(self) -> dict[str, str]:
        return keys.key(self.pk, self.sk)


@dataclass(frozen=True)
class DueItem:
    """A schedule item as read, with its key."""

    key: ScheduleKey
    item: ScheduleItem


@dataclass(frozen=True)
class Backlog:
    """What is due and not done: how many items, and the oldest one's due time."""

    count: int
    oldest_due: datetime | None


def schedule_key(kind: ScheduleKind, account_id: int, reference: str, due: datetime) -> ScheduleKey:
    shard = keys.schedule_shard(account_id, reference, SCHEDULE_SHARDS)
    return ScheduleKey(
        keys.schedule_pk(shard), keys.schedule_sk(schedule_moment(due), kind.value, account_id, reference)
    )


def key_of_sk(account_id: int, reference: str, sk: str) -> ScheduleKey:
    """The full key of a record's schedule item from the SK the record keeps."""
    return ScheduleKey(keys.schedule_pk(keys.schedule_shard(account_id, reference, SCHEDULE_SHARDS)), sk)


class ScheduleRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    # --- reads ---------------------------------------------------------------------------------

    def due(
        self, shard: int, now: datetime, limit: int | None = None, start: Item | None = None
    ) -> tuple[list[DueItem], Item | None]:
        """One Query of one shard: items due at or before `now`, oldest first."""
        items, last = self.table.query(
            keys.schedule_pk(shard),
            sk_between=keys.schedule_due_range(schedule_moment(now)),
            limit=limit,
            start_key=start,
            consistent=True,
        )
        return [DueItem(ScheduleKey(i["PK"], i["SK"]), from_item(ScheduleItem, i)) for i in items], last

    def backlog(self, now: datetime) -> Backlog:
        """Items due at or before `now`, counted with key-only Queries (one per shard and page)."""
        count, oldest = 0, None
        for shard in range(SCHEDULE_SHARDS):
            start: Item | None = None
            while True:
                items, start = self.table.query(
                    keys.schedule_pk(shard),
                    sk_between=keys.schedule_due_range(schedule_moment(now)),
                    start_key=start,
                    projection="PK, SK, due_at",
                )
                count += len(items)
                for item in items[:1]:
                    due = datetime.fromisoformat(item["due_at"])
                    oldest = due if oldest is None or due < oldest else oldest
                if start is None:
                    break
        return Backlog(count, oldest)

    def get(self, key: ScheduleKey) -> ScheduleItem | None:
        item = self.table.get(key.as_key(), consistent=True)
        return from_item(ScheduleItem, item) if item else None

    # --- claiming --------------------------------------------------------------------------------

    def claim(self, key: ScheduleKey, claim: str, until: datetime, now: datetime) -> ScheduleItem | None:
        """Take the item for one run until `until` (None: gone, or someone else's live claim)."""
        try:
            item = self.table.update(
                key.as_key(),
                "SET claim = :claim, claimed_until = :until ADD attempts :one",
                condition="attribute_exists(PK) AND (attribute_not_exists(claimed_until)"
                " OR claimed_until < :now)",
                values={
                    ":claim": claim,
                    ":until": schedule_moment(until),
                    ":now": schedule_moment(now),
                    ":one": 1,
                },
                return_values="ALL_NEW",
            )
        except ConditionFailed:
            return None
        return from_item(ScheduleItem, item)

    def release(self, key: ScheduleKey, claim: str) -> None:
        """Give a claim back (the act failed cleanly): the next run takes it at once."""
        with contextlib.suppress(ConditionFailed):
            self.table.update(
                key.as_key(),
                "REMOVE claim, claimed_until",
                condition="claim = :claim",
                values={":claim": claim},
            )

    def remove(self, key: ScheduleKey, claim: str) -> None:
        """Delete the item under this run's claim (one DeleteItem); gone already: nothing."""
        with contextlib.suppress(ConditionFailed):
            self.table.delete(key.as_key(), condition="claim = :claim", values={":claim": claim})

    # --- transaction actions ---------------------------------------------------------------------

    @staticmethod
    def add_item(tx: Transaction, key: ScheduleKey, item: ScheduleItem) -> None:
        stored = to_item(item, key.pk, key.sk, "schedule")
        for absent in ("claim", "claimed_until"):  # a claim's presence is what `claim` tests
            if stored.get(absent) is None:
                stored.pop(absent, None)
        tx.put(stored, condition="attribute_not_exists(PK)")

    @staticmethod
    def add_done(tx: Transaction, key: ScheduleKey, claim: str | None = None) -> None:
        """Remove the item: under `claim` when a run holds it (another run's claim: contention);
        without one (a refund neutralising it), whatever claim it has: a run holding it then
        fails its own transaction and finds the record ended."""
        if claim is None:
            tx.delete(key.as_key())
        else:
            tx.delete(key.as_key(), condition="claim = :claim", values={":claim": claim})
