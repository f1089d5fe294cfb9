"""The store's count of ongoing subscriptions (active or past due), for the dashboard.

Contract: PK `ACCOUNT#{a}`, SK `keys.subscription_count_sk(shard)` for each of
`SCHEDULE_SHARDS` shards, attribute `active`. A recurring payment counts in the shard of its
schedule items (`keys.schedule_shard`): the transaction that writes a new ongoing recurring
payment ADDs 1, a change that ends one ADDs -1 (RecurringPaymentRepository), so the count moves
exactly when the record does. Shards keep the processor, which handles one schedule shard per
run, from contending with itself across subscriptions. The count is the sum of the shards
(read by key beside the dashboard's other items).
"""

from __future__ import annotations

from collections.abc import Mapping

from webstore import keys
from webstore.db import Item, Transaction
from webstore.recurring import SCHEDULE_SHARDS, RecurringPayment

ENTITY = "subscription_count"


def shard_key(account_id: int, shard: int) -> dict[str, str]:
    return keys.key(keys.account_pk(account_id), keys.subscription_count_sk(shard))


class SubscriptionCounts:
    @staticmethod
    def add_change(tx: Transaction, recurring: RecurringPayment, delta: int) -> None:
        """ADD `delta` to the count (one action in the transaction writing `recurring`)."""
        shard = keys.schedule_shard(recurring.account_id, recurring.reference, SCHEDULE_SHARDS)
        tx.update(
            shard_key(recurring.account_id, shard),
            "ADD active :delta SET entity = :e",
            values={":delta": delta, ":e": ENTITY},
        )

    @staticmethod
    def keys_of(account_id: int) -> list[dict[str, str]]:
        return [shard_key(account_id, shard) for shard in range(SCHEDULE_SHARDS)]

    @staticmethod
    def count(account_id: int, found: Mapping[tuple[str, str], Item]) -> int:
        """The count from a batch read that included `keys_of(account_id)`."""
        pk = keys.account_pk(account_id)
        return sum(
            int(found.get((pk, keys.subscription_count_sk(shard)), {}).get("active", 0))
            for shard in range(SCHEDULE_SHARDS)
        )
