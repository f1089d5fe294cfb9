"""Renewal-notice items: one per subscription whose period is a week or longer, in partitions of
their own (`keys.notice_pk(shard)`, the shard as the schedule's), so the renewal schedule's
Queries, backlog and overdue alarm never read them.

Contract: PK `keys.notice_pk(shard)`, SK `keys.schedule_sk(due, "notice", account, reference)`,
body = ScheduleItem (kind NOTICE). "Due up to now" is one Query per shard. The item is claimed
with the schedule's conditional claim (`ScheduleRepository.claim`) and moved (deleted under the
claim, put at its next time) in the transaction that writes the notice's event, if any
(webstore.subscriptions.notices).
"""

from __future__ import annotations

from datetime import datetime

from webstore import keys
from webstore.db import Table, Transaction, from_item
from webstore.recurring import SCHEDULE_SHARDS, ScheduleItem, ScheduleKind, schedule_moment
from webstore.repo.schedule import DueItem, ScheduleKey, ScheduleRepository


def notice_key(account_id: int, reference: str, due: datetime) -> ScheduleKey:
    shard = keys.schedule_shard(account_id, reference, SCHEDULE_SHARDS)
    return ScheduleKey(
        keys.notice_pk(shard),
        keys.schedule_sk(schedule_moment(due), ScheduleKind.NOTICE.value, account_id, reference),
    )


def add_notice(tx: Transaction, account_id: int, reference: str, due: datetime) -> None:
    """Put the subscription's notice item, due at `due`, in `tx`."""
    item = ScheduleItem(kind=ScheduleKind.NOTICE, account_id=account_id, reference=reference, due_at=due)
    ScheduleRepository.add_item(tx, notice_key(account_id, reference, due), item)


def due_notices(table: Table, shard: int, now: datetime) -> list[DueItem]:
    """The shard's notice items due at or before `now`, oldest first (every page)."""
    found: list[DueItem] = []
    start = None
    while True:
        items, start = table.query(
            keys.notice_pk(shard),
            sk_between=keys.schedule_due_range(schedule_moment(now)),
            start_key=start,
            consistent=True,
        )
        found.extend(DueItem(ScheduleKey(i["PK"], i["SK"]), from_item(ScheduleItem, i)) for i in items)
        if start is None:
            return found


def noticed(table: Table, account_id: int) -> set[str]:
    """The references of the account's subscriptions that have a notice item (every shard's
    partition read whole: the backfill's, a one-off; scripts/backfill_renewal_notices.py)."""
    found: set[str] = set()
    for shard in range(SCHEDULE_SHARDS):
        start = None
        while True:
            items, start = table.query(keys.notice_pk(shard), start_key=start, consistent=True)
            found.update(str(i["reference"]) for i in items if int(i.get("account_id", 0)) == account_id)
            if start is None:
                break
    return found
