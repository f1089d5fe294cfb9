"""basket_expired: TTL removals of unpaid baskets whose store asked for it → basket.abandoned."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from functions.events import basket_expired
from webstore.db import serialize, to_attribute_value
from webstore.events import DomainEvent
from webstore.services import Services, get_services

from .conftest import LambdaContext, Wiring, receive

STREAM_ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/webstore/stream/2026-01-01T00:00:00.000"
TTL = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


def basket(**changes: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "PK": "BASKET#5-0123456789abcdef0123456789abcdef",
        "SK": "BASKET",
        "entity": "basket",
        "account_id": 5,
        "ident": "5-0123456789abcdef0123456789abcdef",
        "currency": "EUR",
        "complete": False,
        "username": "Notch",
        "username_id": 1234,
        "email": "notch@example.com",
        "custom": {"discord_id": "99", "score": Decimal("1.5"), "tags": ["a"]},
        "notify_abandoned": True,
        "total_price": Decimal("12.50"),
        "created_at": "2026-01-01T10:00:00+00:00",
        "expires_at": 1767866400,
    }
    item.update(changes)
    return item


def stream_record(
    image: dict[str, Any],
    *,
    sequence: str = "100",
    identity: dict[str, str] | None = TTL,
    name: str = "REMOVE",
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "eventID": f"id-{sequence}",
        "eventName": name,
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": "us-east-1",
        "eventSourceARN": STREAM_ARN,
        "dynamodb": {
            "ApproximateCreationDateTime": 1767866500,
            "Keys": serialize({"PK": image["PK"], "SK": image["SK"]}),
            "OldImage": serialize(to_attribute_value(image)),
            "SequenceNumber": sequence,
            "SizeBytes": 300,
            "StreamViewType": "NEW_AND_OLD_IMAGES",
        },
    }
    if identity is not None:
        record["userIdentity"] = identity
    return record


class RecordingPublisher:
    def __init__(self, fail: bool = False) -> None:
        self.events: list[DomainEvent] = []
        self.fail = fail

    def publish(self, event: DomainEvent) -> None:
        if self.fail:
            raise RuntimeError("EventBridge is unavailable")
        self.events.append(event)


@pytest.fixture
def publisher() -> RecordingPublisher:
    recording = RecordingPublisher()
    get_services().publisher = recording
    return recording


def test_an_expired_basket_publishes_basket_abandoned(
    publisher: RecordingPublisher, context: LambdaContext
) -> None:
    response = basket_expired.handler({"Records": [stream_record(basket())]}, context)

    assert response["batchItemFailures"] == []
    [event] = publisher.events
    assert event.type == "basket.abandoned"
    assert event.account_id == 5
    assert event.subject == {
        "ident": "5-0123456789abcdef0123456789abcdef",
        "username": "Notch",
        "username_id": 1234,
        "email": "notch@example.com",
        "custom": {"discord_id": "99", "score": 1.5, "tags": ["a"]},
        "created_at": "2026-01-01T10:00:00+00:00",
        "expired_at": "2026-01-08T10:00:00+00:00",
        "price": {"amount": 12.5, "currency": "EUR"},
    }
    json.dumps(event.subject)  # plain JSON, no Decimals


def test_the_event_id_is_stable_across_a_retried_batch(
    publisher: RecordingPublisher, context: LambdaContext
) -> None:
    basket_expired.handler({"Records": [stream_record(basket())]}, context)
    basket_expired.handler({"Records": [stream_record(basket())]}, context)
    assert len({e.id for e in publisher.events}) == 1


@pytest.mark.parametrize(
    ("image", "identity", "name"),
    [
        (basket(complete=True), TTL, "REMOVE"),  # paid baskets are not abandoned
        (basket(notify_abandoned=False), TTL, "REMOVE"),  # the store did not ask
        (basket(), None, "REMOVE"),  # deleted by our code, not by TTL
        (basket(), {"type": "Service", "principalId": "someone.else"}, "REMOVE"),
        (basket(), TTL, "MODIFY"),
        ({"PK": "THROTTLE#x#y", "SK": "THROTTLE", "entity": "throttle", "expires_at": 1}, TTL, "REMOVE"),
    ],
    ids=["complete", "not-asked", "not-ttl", "other-principal", "modify", "other-entity"],
)
def test_other_records_are_ignored(
    publisher: RecordingPublisher,
    context: LambdaContext,
    image: dict[str, Any],
    identity: dict[str, str] | None,
    name: str,
) -> None:
    response = basket_expired.handler(
        {"Records": [stream_record(image, identity=identity, name=name)]}, context
    )
    assert response["batchItemFailures"] == []
    assert publisher.events == []


def test_a_failed_publish_is_a_batch_item_failure(context: LambdaContext) -> None:
    get_services().publisher = RecordingPublisher(fail=True)
    records = [stream_record(basket(), sequence="7"), stream_record(basket(complete=True), sequence="8")]
    response = basket_expired.handler({"Records": records}, context)
    assert response["batchItemFailures"] == [{"itemIdentifier": "7"}]


def test_basket_abandoned_reaches_the_webhook_queue(
    aws: Services, wiring: Wiring, context: LambdaContext
) -> None:
    basket_expired.handler({"Records": [stream_record(basket())]}, context)
    [message] = receive(wiring)
    body = json.loads(message["Body"])
    assert body["detail-type"] == "basket.abandoned"
    assert body["detail"]["account_id"] == 5
    assert body["detail"]["subject"]["custom"]["discord_id"] == "99"
