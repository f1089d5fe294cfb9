"""Writing the panel's search keys on items stored before they existed: GSI2's keys and
`package_ids` on payments, GSI2's keys on recurring payments (docs/data-model.md, "GSI2").

Not on a request path: a one-off pass over one account's payments and recurring payments
(`scripts/backfill_search_keys.py`), a page of the account partition at a time, each item
updated on condition that it still lacks the keys and (payments) still has the status read;
an item a use case rewrote meanwhile already has them. Running it twice changes nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from webstore import keys
from webstore.db import ConditionFailed, Item, Table

PAGE = 200


class SearchKeyBackfill:
    def __init__(self, table: Table) -> None:
        self.table = table

    def run(self, account_id: int) -> tuple[int, int]:
        """(payments, recurring payments) given their keys in this account."""
        payments = self._pass(
            account_id, (keys.payment_sk(1), keys.payment_sk(keys.INT32_MAX)), self._payment_keys
        )
        recurring = self._pass(
            account_id, (keys.recurring_payment_sk(""), keys.recurring_payment_sk("~")), self._recurring_keys
        )
        return payments, recurring

    def _pass(self, account_id: int, between: tuple[str, str], update: Any) -> int:
        done = 0
        start: Item | None = None
        while True:
            items, start = self.table.query(
                keys.account_pk(account_id), sk_between=between, limit=PAGE, start_key=start
            )
            for item in items:
                if update(account_id, item):
                    done += 1
            if start is None:
                return done

    def _payment_keys(self, account_id: int, item: Item) -> bool:
        if "package_ids" in item:  # written with its keys (a status change alone adds no package_ids)
            return False
        created = datetime.fromisoformat(item["created_at"])
        package_ids = sorted(
            {int(line["package_id"]) for line in item.get("lines", []) if not line.get("dynamic")}
        )
        return self._update(
            item,
            "SET GSI2PK = :pk, GSI2SK = if_not_exists(GSI2SK, :sk), package_ids = :ids",
            "attribute_not_exists(package_ids) AND #status = :status",
            {
                ":pk": keys.payments_of_status(account_id, item["status"]),
                ":sk": keys.payment_time_gsi2sk(created, int(item["id"])),
                ":ids": package_ids,
                ":status": item["status"],
            },
            {"#status": "status"},
        )

    def _recurring_keys(self, account_id: int, item: Item) -> bool:
        if item.get("entity") != "recurring_payment" or "GSI2SK" in item:
            return False
        return self._update(
            item,
            "SET GSI2PK = :pk, GSI2SK = :sk",
            "attribute_not_exists(GSI2SK)",
            {
                ":pk": keys.recurring_of_account(account_id),
                ":sk": keys.recurring_gsi2sk(int(item["initial_payment_id"])),
            },
            None,
        )

    def _update(
        self,
        item: Item,
        expression: str,
        condition: str,
        values: dict[str, Any],
        names: dict[str, str] | None,
    ) -> bool:
        try:
            self.table.update(
                keys.key(item["PK"], item["SK"]), expression, condition=condition, values=values, names=names
            )
        except ConditionFailed:  # rewritten meanwhile: it has its keys (or a new status) already
            return False
        return True
