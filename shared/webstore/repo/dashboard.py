"""The dashboard's items by key: the store item, its days' figures (webstore.repo.daily_stats)
and its subscription count shards, in BatchGetItems of at most 100 keys issued side by side (one
round trip whatever the range or the store's size)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from webstore import keys
from webstore.catalog import Store
from webstore.db import Item, Table, from_item, start_read
from webstore.repo.daily_stats import DailyStatsRepository, DayFigures
from webstore.repo.subscription_counts import SubscriptionCounts

BATCH_KEYS = 100  # DynamoDB's BatchGetItem limit


@dataclass(frozen=True)
class DashboardItems:
    store: Store | None
    days: list[DayFigures]  # in the order asked
    active_subscriptions: int


class DashboardRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    def read(self, account_id: int, days: list[date]) -> DashboardItems:
        """Every key at once: the first batch on this thread, the others beside it."""
        store_key = keys.key(keys.store_pk(account_id), keys.STORE_ITEM)
        wanted = [store_key, *SubscriptionCounts.keys_of(account_id)]
        wanted += DailyStatsRepository.keys_of(account_id, days)
        batches = [wanted[start : start + BATCH_KEYS] for start in range(0, len(wanted), BATCH_KEYS)]
        beside = [start_read(self.table.batch_get, batch) for batch in batches[1:]]
        items = self.table.batch_get(batches[0])
        for read in beside:
            items += read.result()
        found: dict[tuple[str, str], Item] = {(i["PK"], i["SK"]): i for i in items}
        store = found.get((store_key["PK"], store_key["SK"]))
        return DashboardItems(
            store=from_item(Store, store) if store else None,
            days=DailyStatsRepository.figures(account_id, days, found),
            active_subscriptions=SubscriptionCounts.count(account_id, found),
        )
