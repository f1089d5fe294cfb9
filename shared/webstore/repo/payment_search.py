"""Pages of payments for the panel's searches: newest first, each page one Query per source
(sources read in parallel), continued by a keyset cursor (the sort key the page stopped at).

A source is one key range of one partition (the account's `PAY#` range, a player's GSI1
partition, a status's GSI2 partition between two days). A search that names several sources
(a date range over every status) merges them; one that filters (a package, a status on a
player's partition) reads at most `window` items per source and page, so a page may hold fewer
matches than asked for and still have a cursor: what it read is bounded whatever the store's
size. See docs/data-model.md ("The panel's payment search").
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from webstore import keys
from webstore.db import GSI1, GSI2, INDEX_KEYS, Item, Table, from_item, start_read
from webstore.repo.payments import PaymentRecord

__all__ = [
    "GSI1",
    "GSI2",
    "Filter",
    "PaymentPage",
    "PaymentPeriodRepository",
    "PaymentSearchRepository",
    "Source",
]


@dataclass(frozen=True)
class Source:
    """One key range to read newest first: `pk` on `index` (None: the table), sort keys
    `low`..`high` (both inclusive)."""

    pk: str
    low: str
    high: str
    index: str | None = None

    @property
    def sort_key(self) -> str:
        return INDEX_KEYS[self.index][1]


@dataclass(frozen=True)
class Filter:
    """A FilterExpression over the items a source reads (names and values prefixed `#f`/`:f`)."""

    expression: str
    names: Mapping[str, str] = field(default_factory=dict)
    values: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PaymentPage:
    payments: list[PaymentRecord]
    cursor: str | None  # where the next page starts (exclusive); None: nothing older


@dataclass(frozen=True)
class _Read:
    items: list[Item]
    stopped_at: str | None  # the sort key the Query stopped at with more to read, else None


class PaymentSearchRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    def page(
        self,
        sources: list[Source],
        *,
        limit: int,
        cursor: str | None = None,
        where: Filter | None = None,
        window: int = 100,
    ) -> PaymentPage:
        """Up to `limit` payments below `cursor` (all sources merged, newest first).

        Without a filter each source reads `limit` + 1 items (+ 1 for the item at the cursor,
        which the previous page showed); with one, `window`. The page ends at the highest
        sort key where some source stopped with more to read: below it, that source has not
        been read, so nothing below it can be shown yet (it is the next page's cursor)."""
        wanted = (window if where else limit + 1) + (1 if cursor else 0)
        ranges = [(s, min(s.high, cursor) if cursor else s.high) for s in sources]
        ranges = [(s, high) for s, high in ranges if s.low <= high]
        if not ranges:
            return PaymentPage([], None)
        futures: list[Future[_Read]] = [
            start_read(self._read, source, high, wanted, where) for source, high in ranges[1:]
        ]
        reads = [self._read(ranges[0][0], ranges[0][1], wanted, where), *(f.result() for f in futures)]

        sort_keys = [s.sort_key for s, _ in ranges]
        found: list[tuple[str, Item]] = []
        for read, name in zip(reads, sort_keys, strict=True):
            found += [(item[name], item) for item in read.items if item[name] != cursor]
        found.sort(key=lambda pair: pair[0], reverse=True)
        stops = [r.stopped_at for r in reads if r.stopped_at is not None]
        boundary = max(stops) if stops else None
        shown = [pair for pair in found if boundary is None or pair[0] >= boundary]
        if len(shown) > limit:
            next_cursor: str | None = shown[limit - 1][0]
            shown = shown[:limit]
        else:
            next_cursor = boundary
        return PaymentPage([from_item(PaymentRecord, item) for _, item in shown], next_cursor)

    def _read(self, source: Source, high: str, limit: int, where: Filter | None) -> _Read:
        items, last = self.table.query(
            source.pk,
            index=source.index,
            sk_between=(source.low, high),
            forward=False,
            limit=limit,
            filter_expression=where.expression if where else None,
            names=where.names if where else None,
            values=where.values if where else None,
        )
        return _Read(items, last[source.sort_key] if last else None)


class PaymentPeriodRepository:
    """Every payment made between two UTC days, whatever its status: one Query per status
    partition of GSI2 (`PAYSTATUS#a#{status}`, sort key the payment's time), the three issued side
    by side, each followed to its last page. The tax report's read (webstore.invoices.report)."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def between(
        self, account_id: int, first_day: str, last_day: str, statuses: list[str]
    ) -> list[PaymentRecord]:
        """Payments of the UTC days `first_day`..`last_day` (`YYYYMMDD`, both included), oldest first."""
        low, high = keys.day_start_gsi2sk(first_day), keys.day_end_gsi2sk(last_day)
        pks = [keys.payments_of_status(account_id, status) for status in statuses]
        futures = [start_read(self._all, pk, low, high) for pk in pks[1:]]
        items = self._all(pks[0], low, high) if pks else []
        for future in futures:
            items += future.result()
        found = [from_item(PaymentRecord, item) for item in items]
        return sorted(found, key=lambda p: (p.created_at, p.id))

    def _all(self, pk: str, low: str, high: str) -> list[Item]:
        items: list[Item] = []
        start: Item | None = None
        while True:
            page, start = self.table.query(pk, index=GSI2, sk_between=(low, high), start_key=start)
            items += page
            if start is None:
                return items
