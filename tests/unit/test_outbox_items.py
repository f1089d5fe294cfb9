"""Outbox items (webstore.repo.outbox): what a use case writes is what the pipe puts on the bus,
and the local stream reads the events back from a write's parameters, in order."""

from __future__ import annotations

import json
from datetime import datetime

from webstore import keys
from webstore.attribute_values import serialize
from webstore.db import TTL_ATTRIBUTE, TransactAction
from webstore.events import DomainEvent, InProcessBus
from webstore.local_stream import LocalStream
from webstore.repo.outbox import OUTBOX_TTL, event_of, events_written, outbox_item

EVENT = DomainEvent(
    type="payment.completed",
    account_id=7,
    subject={"transaction_id": "tbx-3-0a0b0c0d", "price": {"amount": 9.5}, "custom": {"k": [1, 2]}},
    date="2026-05-01T12:00:00+00:00",
)


def test_the_item_holds_the_events_detail_exactly_as_it_goes_on_the_bus() -> None:
    item = outbox_item(EVENT, position=3)
    assert {"PK": item["PK"], "SK": item["SK"]} == keys.outbox_key(EVENT.id)
    assert (item["entity"], item["type"], item["position"]) == ("outbox", "payment.completed", 3)
    assert json.loads(item["detail"]) == EVENT.detail()
    written = datetime.fromisoformat(EVENT.date)
    assert item[TTL_ATTRIBUTE] == int((written + OUTBOX_TTL).timestamp())
    assert event_of(item) == EVENT


def test_a_redelivery_keeps_the_endpoints_it_names() -> None:
    again = DomainEvent(type="payment.completed", account_id=7, subject={}, endpoints=(2, 5))
    assert event_of(outbox_item(again)).endpoints == (2, 5)


def test_the_events_of_a_write_are_its_outbox_puts_in_order() -> None:
    second = DomainEvent(type="recurring-payment.started", account_id=7, subject={"reference": "r"})
    actions = [
        TransactAction.put({"PK": "ACCOUNT#7", "SK": "PAY#0000000003", "entity": "payment"}),
        TransactAction.put(outbox_item(EVENT)),
        TransactAction.update({"PK": "ACCOUNT#7", "SK": "SEQ"}, "SET n = :n", values={":n": 1}),
        TransactAction.put(outbox_item(second)),
    ]
    params = {"TransactItems": [a.to_request("t") for a in actions]}
    assert [e.id for e in events_written("TransactWriteItems", params)] == [EVENT.id, second.id]
    assert events_written("PutItem", {"Item": serialize(outbox_item(EVENT))}) == [EVENT]
    assert events_written("PutItem", {"Item": serialize({"PK": "OUTBOX#x", "SK": "OUTBOX"})}) == []
    assert events_written("UpdateItem", {"Key": {}}) == []


class FakeOutbox:
    def __init__(self) -> None:
        self.deleted: list[str] = []

    def delete(self, event_id: str) -> None:
        self.deleted.append(event_id)


def test_the_local_stream_deletes_an_item_once_published_or_once_its_consumer_is_done() -> None:
    outbox, bus = FakeOutbox(), InProcessBus()
    stream = LocalStream(outbox, bus)  # type: ignore[arg-type]
    stream.publish([EVENT])
    assert bus.published == [EVENT]
    assert (stream.flush(), outbox.deleted) == (1, [EVENT.id])

    outbox.deleted.clear()
    stream.consumer_acknowledges()  # the local webhook worker says when it is done
    later = DomainEvent(type="payment.refunded", account_id=7, subject={})
    stream.publish([later])
    assert stream.flush() == 0 and outbox.deleted == []  # not delivered yet: kept for a restart
    stream.acknowledge(DomainEvent(type="payment.completed", account_id=7, subject={}))  # not ours
    stream.acknowledge(later)
    assert stream.flush() == 1 and outbox.deleted == [later.id]


def test_the_local_stream_waits_for_every_consumer_and_every_copy_published() -> None:
    outbox, bus = FakeOutbox(), InProcessBus()
    stream = LocalStream(outbox, bus)  # type: ignore[arg-type]
    stream.consumer_acknowledges()  # the webhook worker
    stream.consumer_acknowledges()  # the mail worker
    stream.publish([EVENT])
    stream.publish([EVENT])  # published again while in flight (a redelivery): each copy is owed
    for _ in range(3):
        stream.acknowledge(EVENT)
        assert stream.flush() == 0 and outbox.deleted == []
    stream.acknowledge(EVENT)
    assert stream.flush() == 1 and outbox.deleted == [EVENT.id]
    stream.acknowledge(EVENT)  # a late word about an event already done with: ignored
    assert stream.flush() == 0


def test_the_local_bus_keeps_only_its_latest_events() -> None:
    bus = InProcessBus()
    events = [DomainEvent(type="payment.completed", account_id=7, subject={"n": n}) for n in range(2001)]
    for event in events[:2000]:
        bus.publish(event)
    assert bus.published == events[:2000]  # up to twice the kept count: all there
    bus.publish(events[2000])
    assert bus.published == events[-InProcessBus.PUBLISHED_KEPT :]  # then the oldest go
