"""EventBridge reports refused events per entry inside a 200 response (FailedEntryCount), which
the client's own retries never see: the publisher retries the entry, then fails the caller
(issue 9, bug 2)."""

from __future__ import annotations

from typing import Any

import pytest

from webstore.events import DomainEvent, EventBridgePublisher, EventNotPublished

REFUSED = {"FailedEntryCount": 1, "Entries": [{"ErrorCode": "InternalFailure", "ErrorMessage": "try again"}]}
ACCEPTED = {"FailedEntryCount": 0, "Entries": [{"EventId": "e-1"}]}


class StubEventBridge:
    """Answers PutEvents from a script of responses and keeps what it was sent."""

    def __init__(self, *responses: dict[str, Any]) -> None:
        self.responses = list(responses)
        self.calls: list[list[dict[str, str]]] = []

    def put_events(self, Entries: list[dict[str, str]]) -> dict[str, Any]:
        self.calls.append(Entries)
        return self.responses.pop(0)


def publisher(client: StubEventBridge, slept: list[float]) -> EventBridgePublisher:
    return EventBridgePublisher(lambda: client, "bus", retry_delays=(0.05, 0.2, 0.5), sleep=slept.append)


def event() -> DomainEvent:
    return DomainEvent(type="payment.completed", account_id=1, subject={"id": 7})


def test_a_refused_entry_is_retried_until_accepted() -> None:
    client, slept = StubEventBridge(REFUSED, REFUSED, ACCEPTED), []
    publisher(client, slept).publish(event())
    assert len(client.calls) == 3
    assert client.calls[0] == client.calls[2]  # the same entry each time
    assert client.calls[0][0]["DetailType"] == "payment.completed"
    assert slept == [0.05, 0.2]


def test_an_entry_refused_on_every_attempt_fails_the_caller() -> None:
    client, slept = StubEventBridge(REFUSED, REFUSED, REFUSED, REFUSED), []
    published = event()
    with pytest.raises(EventNotPublished, match=f"{published.id}.*InternalFailure"):
        publisher(client, slept).publish(published)
    assert len(client.calls) == 4
    assert slept == [0.05, 0.2, 0.5]


def test_an_accepted_entry_is_put_once() -> None:
    client, slept = StubEventBridge(ACCEPTED), []
    publisher(client, slept).publish(event())
    assert len(client.calls) == 1 and slept == []
