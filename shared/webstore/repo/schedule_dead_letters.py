"""Schedule items that kept failing, moved aside (the schedule's dead letters).

The processor releases an item whose act failed, and the next run takes it again; `attempts`
counts the claims. An item claimed `MAX_ATTEMPTS` times without being finished fails for a reason
that retrying every minute will not fix (and a renewal that charges and then fails to record
refunds each time): it is moved, in one transaction, from its shard to the `SCHEDULE_DEAD`
partition (same body, plus where it came from), where no run reads it. Its record still names it
(`schedule_sk`), so moving it back (`redrive`) makes it due again as it was. The scheduled
function reports how many rest here (`ScheduleDeadLetters` metric, alarmed at 1).
"""

from __future__ import annotations

from datetime import datetime

from webstore import keys
from webstore.db import Item, Table, Transaction, TransactionCancelled
from webstore.recurring import schedule_moment
from webstore.repo.schedule import ScheduleKey

DEAD_PK = "SCHEDULE_DEAD"  # not under keys.SCHEDULE_PREFIX: no shard Query reads it
_NOT_HELD = "(attribute_not_exists(claimed_until) OR claimed_until < :now)"


def dead_sk(key: ScheduleKey) -> str:
    return f"{key.pk}|{key.sk}"


class ScheduleDeadLetterRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    def failing(self, shard: int, now: datetime, max_attempts: int) -> list[Item]:
        """Due items of one shard claimed `max_attempts` times or more and not held by a live
        claim (reads what is due, as the processor's Query does; returns the failing ones)."""
        found: list[Item] = []
        start: Item | None = None
        while True:
            items, start = self.table.query(
                keys.schedule_pk(shard),
                sk_between=keys.schedule_due_range(schedule_moment(now)),
                start_key=start,
                consistent=True,
                filter_expression=f"attempts >= :max AND {_NOT_HELD}",
                values={":max": max_attempts, ":now": schedule_moment(now)},
            )
            found += items
            if start is None:
                return found

    def park(self, item: Item, now: datetime) -> bool:
        """Move the item aside, unless a run claimed (or finished) it since it was read."""
        key = ScheduleKey(item["PK"], item["SK"])
        tx = Transaction(self.table)
        tx.delete(
            key.as_key(),
            condition=f"attempts = :seen AND {_NOT_HELD}",
            values={":seen": item["attempts"], ":now": schedule_moment(now)},
        )
        parked = {**item, "PK": DEAD_PK, "SK": dead_sk(key), "parked_at": now.isoformat()}
        tx.put(parked, condition="attribute_not_exists(PK)")
        try:
            tx.commit()
        except TransactionCancelled:
            return False
        return True

    def parked(self) -> list[Item]:
        items, _ = self.table.query(DEAD_PK)
        return items

    def redrive(self, item: Item) -> None:
        """Put a parked item back in its shard (attempts reset): due again at its own time."""
        pk, _, sk = str(item["SK"]).partition("|")
        back = {k: v for k, v in item.items() if k not in ("parked_at", "claim", "claimed_until")}
        tx = Transaction(self.table)
        tx.delete({"PK": DEAD_PK, "SK": item["SK"]}, condition="attribute_exists(PK)")
        tx.put({**back, "PK": pk, "SK": sk, "attempts": 0}, condition="attribute_not_exists(PK)")
        tx.commit()
