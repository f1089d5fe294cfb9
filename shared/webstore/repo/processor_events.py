"""Processor webhook events already handled (by the processor's event id), and facts about a
processor's objects that later events must see: one small item each in the account partition,
removed by TTL once the processor has stopped retrying."""

from __future__ import annotations

from datetime import datetime, timedelta

from webstore import keys
from webstore.db import TTL_ATTRIBUTE, ConditionFailed, Table

# Stripe retries a webhook for up to three days; a month is well past any replay.
KEEP_FOR = timedelta(days=30)
STRIPE = "stripe"  # Stripe's items are keyed by this name (webstore.checkout.processor_events)


class ProcessorEventRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    def seen(self, account_id: int, gateway: str, names: list[str]) -> set[str]:
        """Which of `names` are recorded: one BatchGetItem (consistent: a retry just after)."""
        pk = keys.account_pk(account_id)
        found = self.table.batch_get(
            [keys.key(pk, keys.processor_event_sk(gateway, name)) for name in names], consistent=True
        )
        prefix = keys.processor_event_sk(gateway, "")
        return {item["SK"][len(prefix) :] for item in found}

    def note_received(self, account_id: int, gateway: str, event_type: str, now: datetime) -> None:
        """The time and type of the last verified event received (one PutItem, overwritten)."""
        self.table.put(
            {
                **keys.key(keys.account_pk(account_id), keys.processor_last_event_sk(gateway)),
                "entity": "processor_last_event",
                "at": now.isoformat(),
                "type": event_type,
            }
        )

    def last_received(self, account_id: int, gateway: str) -> tuple[datetime, str] | None:
        """When, and which type, the last verified event arrived (None: never)."""
        item = self.table.get(keys.key(keys.account_pk(account_id), keys.processor_last_event_sk(gateway)))
        return (datetime.fromisoformat(item["at"]), str(item["type"])) if item else None

    def record(self, account_id: int, gateway: str, name: str, now: datetime) -> bool:
        """Record `name` once (conditional PutItem): False when it was recorded already."""
        item = {
            **keys.key(keys.account_pk(account_id), keys.processor_event_sk(gateway, name)),
            "entity": "processor_event",
            "at": now.isoformat(),
            TTL_ATTRIBUTE: int((now + KEEP_FOR).timestamp()),
        }
        try:
            self.table.put(item, condition="attribute_not_exists(PK)")
        except ConditionFailed:
            return False
        return True
