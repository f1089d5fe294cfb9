"""The outbox: domain events written in the transaction of the change they describe.

One item per event (`keys.outbox_key`, entity `outbox`): the webhook type, the event's detail
exactly as it goes on the bus (JSON text: EventBridge Pipes hands it to the bus unchanged), and a
TTL. Nothing reads it on a request path: in AWS the table's stream (INSERT records of this
entity) feeds EventBridge Pipes, which puts each on the bus; locally `webstore.local_stream` does
the same from the embedded table (docs/webhooks.md, "How it works").
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from webstore import keys
from webstore.attribute_values import deserialize
from webstore.db import TTL_ATTRIBUTE, Item, Table, Transaction
from webstore.events import DomainEvent

# How long an outbox item stays after its write: the stream publishes it within seconds (a
# stream keeps records 24 hours); the local stack deletes it once published.
OUTBOX_TTL = timedelta(days=1)
# The attributes EventBridge Pipes reads (infra/aws/events.py: filter, detail-type, detail).
TYPE_ATTRIBUTE = "type"
DETAIL_ATTRIBUTE = "detail"


def outbox_item(event: DomainEvent, position: int = 0) -> Item:
    """The event as an outbox item; `position`: its place among the events of one write (the
    order a sweep republishes them in)."""
    written = datetime.fromisoformat(event.date)
    return {
        **keys.outbox_key(event.id),
        "entity": keys.OUTBOX_ENTITY,
        TYPE_ATTRIBUTE: str(event.type),
        DETAIL_ATTRIBUTE: json.dumps(event.detail(), default=str, separators=(",", ":")),
        "account_id": event.account_id,
        "date": event.date,
        "position": position,
        TTL_ATTRIBUTE: int((written + OUTBOX_TTL).timestamp()),
    }


def event_of(item: Mapping[str, Any]) -> DomainEvent:
    """The event an outbox item holds, as it was written."""
    detail = json.loads(item[DETAIL_ATTRIBUTE])
    endpoints = detail.get("endpoints")
    return DomainEvent(
        type=str(item[TYPE_ATTRIBUTE]),
        account_id=int(detail["account_id"]),
        subject=detail["subject"],
        id=str(detail["id"]),
        date=str(detail["date"]),
        endpoints=tuple(int(e) for e in endpoints) if endpoints is not None else None,
    )


def is_outbox_item(item: Mapping[str, Any]) -> bool:
    return item.get("entity") == keys.OUTBOX_ENTITY and str(item.get("PK", "")).startswith(keys.OUTBOX_PREFIX)


def events_written(operation: str, params: Mapping[str, Any]) -> list[DomainEvent]:
    """The outbox items a PutItem or TransactWriteItems request writes (its parameters as sent,
    DynamoDB-typed), as events, in the request's order."""
    if operation == "PutItem":
        serialized = [params.get("Item") or {}]
    elif operation == "TransactWriteItems":
        serialized = [a["Put"].get("Item") or {} for a in params.get("TransactItems", []) if "Put" in a]
    else:
        return []
    found = []
    for raw in serialized:
        if (raw.get("entity") or {}).get("S") != keys.OUTBOX_ENTITY:
            continue
        item = deserialize(raw)
        if is_outbox_item(item):
            found.append(event_of(item))
    return found


class OutboxRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    @staticmethod
    def add(tx: Transaction, event: DomainEvent) -> None:
        """Write `event` with the transaction's change (one more action, no round trip)."""
        tx.put(outbox_item(event, position=len(tx)))

    @staticmethod
    def add_all(tx: Transaction, events: list[DomainEvent]) -> None:
        for event in events:
            OutboxRepository.add(tx, event)

    def put(self, event: DomainEvent) -> None:
        """An event that describes no change of ours (a declined try, a redelivery): written alone
        (one PutItem), published from the table like every other."""
        self.table.put(outbox_item(event))

    def put_all(self, events: list[DomainEvent]) -> None:
        """Several such events in one write (a transaction when more than one)."""
        if len(events) == 1:
            self.put(events[0])
        elif events:
            tx = Transaction(self.table)
            self.add_all(tx, events)
            tx.commit()

    def waiting(self) -> list[DomainEvent]:
        """Every outbox item still in the table, oldest first (a Scan: the local stack's start-up
        sweep only; no deployed function may scan)."""
        items = [
            item
            for item in self.table.scan(
                filter_expression="#entity = :outbox",
                names={"#entity": "entity"},
                values={":outbox": keys.OUTBOX_ENTITY},
            )
            if is_outbox_item(item)
        ]
        items.sort(key=lambda item: (str(item.get("date", "")), int(item.get("position", 0))))
        return [event_of(item) for item in items]

    def delete(self, event_id: str) -> None:
        """Published: the item has served (the local stack; in AWS the TTL removes it)."""
        self.table.delete(keys.outbox_key(event_id))
