"""EventBridge bus → rule → SQS → dispatch handler → a receiver on 127.0.0.1 (moto for AWS)."""

from __future__ import annotations

import json
from collections.abc import Callable

import boto3
import pytest

from functions.events import dispatch_webhook
from webstore.events import SOURCE, DomainEvent, EventBridgePublisher
from webstore.repo.outbox import outbox_item
from webstore.services import Services
from webstore.webhooks.envelope import verify

from .conftest import (
    BUS,
    REGION,
    SECRET,
    Behaviour,
    LambdaContext,
    Receiver,
    Wiring,
    add_endpoint,
    attempt_history,
    echo_then,
    make_visible,
    receive,
    sqs_event,
)

ACCOUNT = 42


def publish(event: DomainEvent) -> None:
    EventBridgePublisher(lambda: boto3.client("events", region_name=REGION), BUS).publish(event)


def paid(account_id: int = ACCOUNT) -> DomainEvent:
    return DomainEvent(
        type="payment.completed",
        account_id=account_id,
        subject={
            "transaction_id": "tbx-1-abcdef12",
            "status": {"id": 1, "description": "Complete"},
            "price": {"amount": 9.99, "currency": "EUR"},
            "custom": {"discord_id": "1234", "nested": {"list": [1, 2]}},
        },
    )


def failed_ids(response: dict[str, object]) -> list[str]:
    failures = response["batchItemFailures"]
    assert isinstance(failures, list)
    return [f["itemIdentifier"] for f in failures]


def test_events_reach_the_queue_with_detail_type_and_detail(wiring: Wiring) -> None:
    event = paid()
    publish(event)

    [message] = receive(wiring)
    body = json.loads(message["Body"])
    assert body["source"] == "webstore"
    assert body["detail-type"] == "payment.completed"
    assert body["detail"] == {
        "id": event.id,
        "account_id": ACCOUNT,
        "date": event.date,
        "subject": event.subject,
    }
    assert body["detail"]["subject"]["custom"] == {"discord_id": "1234", "nested": {"list": [1, 2]}}


@pytest.mark.usefixtures("allow_private")
def test_dispatch_delivers_a_signed_envelope(
    aws: Services,
    wiring: Wiring,
    receiver_factory: Callable[[Behaviour], Receiver],
    context: LambdaContext,
) -> None:
    receiver = receiver_factory(echo_then())
    add_endpoint(aws, ACCOUNT, 1, receiver.url)
    event = paid()
    publish(event)

    response = dispatch_webhook.handler(sqs_event(wiring, receive(wiring)), context)

    assert failed_ids(response) == []
    assert len(receiver.validations) == 1
    [delivery] = receiver.events
    assert delivery.body == {
        "id": event.id,
        "type": "payment.completed",
        "date": event.date,
        "subject": event.subject,
    }
    assert verify(SECRET, delivery.raw, delivery.headers["X-Signature"])
    assert delivery.headers["Content-Type"] == "application/json"
    # The validation request is signed too (receivers that check every request accept it).
    assert verify(SECRET, receiver.validations[0].raw, receiver.validations[0].headers["X-Signature"])


@pytest.mark.usefixtures("allow_private")
def test_a_receiver_failing_twice_gets_one_successful_delivery_after_retries(
    aws: Services,
    wiring: Wiring,
    receiver_factory: Callable[[Behaviour], Receiver],
    context: LambdaContext,
) -> None:
    flaky = receiver_factory(echo_then([500, 502]))
    steady = receiver_factory(echo_then())
    add_endpoint(aws, ACCOUNT, 1, flaky.url)
    add_endpoint(aws, ACCOUNT, 2, steady.url)
    event = paid()
    publish(event)

    messages = receive(wiring)
    receive_counts = []
    for _ in range(3):
        receive_counts.append(messages[0]["Attributes"]["ApproximateReceiveCount"])
        response = dispatch_webhook.handler(sqs_event(wiring, messages), context)
        if not failed_ids(response):
            break
        assert failed_ids(response) == [messages[0]["MessageId"]]
        # The handler postponed the message (backoff): it is not receivable right away.
        assert receive(wiring, expected=0) == []
        make_visible(wiring, messages)
        messages = receive(wiring)
    else:
        pytest.fail("never succeeded")

    assert receive_counts == ["1", "2", "3"]
    assert [r.body["id"] for r in flaky.events] == [event.id] * 3  # stable id across retries
    assert all(verify(SECRET, r.raw, r.headers["X-Signature"]) for r in flaky.events)
    assert len(steady.events) == 1  # skipped on the retries: it already had the event

    history = [a for a in attempt_history(aws, ACCOUNT, 50) if a.event_id == event.id]
    flaky_attempts = sorted((a for a in history if a.endpoint_id == 1), key=lambda a: a.attempt)
    assert [(a.attempt, a.status_code, a.success) for a in flaky_attempts] == [
        (1, 500, False),
        (2, 502, False),
        (3, 200, True),
    ]
    assert all(a.latency_ms >= 0 and a.event_type == "payment.completed" for a in flaky_attempts)
    assert sorted(a.endpoint_id for a in history if a.success) == [1, 2]  # one success each

    # A duplicate of the message after success (SQS is at least once): nothing is sent again.
    response = dispatch_webhook.handler(sqs_event(wiring, messages), context)
    assert failed_ids(response) == []
    assert len(flaky.events) == 3
    assert len(steady.events) == 1


@pytest.mark.usefixtures("allow_private")
def test_a_receiver_that_always_fails_reports_the_batch_item_failure(
    aws: Services,
    wiring: Wiring,
    receiver_factory: Callable[[Behaviour], Receiver],
    context: LambdaContext,
) -> None:
    down = receiver_factory(echo_then(default=503))
    add_endpoint(aws, ACCOUNT, 1, down.url)
    other = paid(account_id=7)  # another account's event: no endpoints, nothing to retry
    failing = paid()
    publish(failing)
    publish(other)
    messages = receive(wiring, expected=2)
    assert len(messages) == 2
    failing_id = next(m["MessageId"] for m in messages if failing.id in m["Body"])

    for _ in range(3):
        response = dispatch_webhook.handler(sqs_event(wiring, messages), context)
        assert failed_ids(response) == [failing_id]
        messages = [m for m in messages if m["MessageId"] == failing_id]
        make_visible(wiring, messages)
        messages = receive(wiring)

    assert len(down.events) == 3
    attempts = [a for a in attempt_history(aws, ACCOUNT, 50) if a.event_id == failing.id]
    assert sorted(a.attempt for a in attempts) == [1, 2, 3]
    assert not any(a.success for a in attempts)


def test_a_malformed_message_is_a_batch_item_failure(wiring: Wiring, context: LambdaContext) -> None:
    boto3.client("sqs", region_name=REGION).send_message(QueueUrl=wiring.queue_url, MessageBody="{not json")
    messages = receive(wiring)
    response = dispatch_webhook.handler(sqs_event(wiring, messages), context)
    assert failed_ids(response) == [messages[0]["MessageId"]]


def test_the_eventbridge_client_is_made_on_the_first_publish_only(wiring: Wiring) -> None:
    """Functions that never publish (every read) do not pay for an EventBridge client at cold start."""
    made: list[str] = []

    def factory() -> object:
        made.append("events")
        return boto3.client("events", region_name=REGION)

    publisher = EventBridgePublisher(factory, BUS)
    assert made == []
    publisher.publish(paid())
    publisher.publish(paid())
    assert made == ["events"]
    assert len(receive(wiring, expected=2)) == 2


def test_services_in_aws_mode_make_no_eventbridge_client_until_publishing(aws: Services) -> None:
    publisher = aws.publisher
    assert isinstance(publisher, EventBridgePublisher)
    assert "client" not in vars(publisher)


def put_as_the_outbox_pipe(item: dict[str, object]) -> None:
    """What the outbox pipe (infra/aws/outbox.py) puts on the bus for a stream INSERT of `item`:
    source `webstore`, detail-type = the item's `type`, detail = the item's `detail` text."""
    events = boto3.client("events", region_name=REGION)
    answer = events.put_events(
        Entries=[
            {"Source": SOURCE, "DetailType": item["type"], "Detail": item["detail"], "EventBusName": BUS}
        ]
    )
    assert answer["FailedEntryCount"] == 0


@pytest.mark.usefixtures("allow_private")
def test_an_outbox_item_reaches_the_receiver_as_the_event_once_however_often_the_stream_repeats_it(
    aws: Services,
    wiring: Wiring,
    receiver_factory: Callable[[Behaviour], Receiver],
    context: LambdaContext,
) -> None:
    receiver = receiver_factory(echo_then())
    add_endpoint(aws, ACCOUNT, 1, receiver.url)
    event = paid()
    item = outbox_item(event)
    put_as_the_outbox_pipe(item)
    [message] = receive(wiring)
    body = json.loads(message["Body"])
    assert (body["source"], body["detail-type"]) == ("webstore", "payment.completed")
    assert body["detail"] == event.detail()  # exactly as a direct PutEvents put it

    assert failed_ids(dispatch_webhook.handler(sqs_event(wiring, [message]), context)) == []
    put_as_the_outbox_pipe(item)  # the stream record again (a retried batch)
    assert failed_ids(dispatch_webhook.handler(sqs_event(wiring, receive(wiring)), context)) == []
    [delivery] = receiver.events  # the claim skipped the repeat
    assert delivery.body == {
        "id": event.id,
        "type": "payment.completed",
        "date": event.date,
        "subject": event.subject,
    }
    assert verify(SECRET, delivery.raw, delivery.headers["X-Signature"])
