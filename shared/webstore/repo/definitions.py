"""The catalog import's writes: definitions overwritten, runtime state (counters, balances,
progress) kept. Not a request path: batches and one write per item are fine here."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from webstore import keys
from webstore.catalog import Store
from webstore.db import Item, Table, from_item


class DefinitionRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    def existing_store(self, account_id: int) -> Store | None:
        """The store as a previous import left it (consistent read), or None on a first import."""
        item = self.table.get(keys.key(keys.store_pk(account_id), keys.STORE_ITEM), consistent=True)
        return from_item(Store, item) if item else None

    def overwrite(self, items: Iterable[Item]) -> None:
        """Put whole items (definitions with no runtime state): BatchWriteItem, 25 a call."""
        self.table.batch_write(items)

    def upsert(self, item: Item, keep: Sequence[str] = ()) -> None:
        """Write an item's definition with UpdateItem SET: attributes not named (counters) survive,
        and the `keep` ones are only set when the item does not have them yet."""
        fields = {k: v for k, v in item.items() if k not in ("PK", "SK")}
        names = {f"#{k}": k for k in fields}
        values: dict[str, Any] = {f":{k}": v for k, v in fields.items()}
        sets = [f"#{k} = if_not_exists(#{k}, :{k})" if k in keep else f"#{k} = :{k}" for k in fields]
        self.table.update(
            {"PK": item["PK"], "SK": item["SK"]}, "SET " + ", ".join(sets), names=names, values=values
        )
