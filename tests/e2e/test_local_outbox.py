"""Issue 22.3 on the real `webstore serve` process: an event committed to the table but never
published (its writer died between the two) is published when the stack starts again, and a
receiver gets it once, with the id it was written with.

The writer here is a plain DynamoDB client on the embedded table's endpoint (as a tool process
that was killed right after its transaction): serve's own stream does not see other processes'
writes, exactly as it would not see a write of its own made just before a kill -9.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

from tests.e2e.conftest import WebhookReceiver, free_port, receiving, wait_for_port
from tests.support.local_stack import serving
from webstore.attribute_values import serialize
from webstore.events import DomainEvent
from webstore.repo.outbox import outbox_item

pytestmark = pytest.mark.e2e


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    yield from receiving(WebhookReceiver(free_port(), secret="outbox-webhook-secret"))


def start(state: Path, creds_file: Path, receiver: WebhookReceiver) -> tuple[Any, Any, dict[str, Any]]:
    ports = free_port(), free_port()
    options = ("--clock-interval", "0", "--webhook", f"{receiver.url}#{receiver.secret}")
    context = serving(*ports, creds_file, "--state-dir", str(state), *options)
    process = context.__enter__()
    wait_for_port(ports[0], process)
    wait_for_port(ports[1], process)
    return context, process, json.loads(creds_file.read_text())


def test_an_event_committed_and_never_published_arrives_after_a_crash_and_restart(
    tmp_path: Path, receiver: WebhookReceiver
) -> None:
    state, creds_file = tmp_path / "state", tmp_path / "credentials.json"
    context, process, creds = start(state, creds_file, receiver)
    event = DomainEvent(
        type="payment.completed",
        account_id=1,
        subject={"transaction_id": "tbx-999-0badf00d", "status": {"id": 1, "description": "Complete"}},
        id=str(uuid.uuid4()),
    )
    table = boto3.client(
        "dynamodb",
        endpoint_url=creds["dynamodb_endpoint"],
        region_name=creds["region"],
        aws_access_key_id=creds["aws_access_key_id"],
        aws_secret_access_key=creds["aws_secret_access_key"],
    )
    table.put_item(TableName=creds["table"], Item=serialize(outbox_item(event)))  # committed
    time.sleep(2)
    assert [e for e in receiver.verified_events() if e["id"] == event.id] == []  # never published
    process.kill()  # kill -9: no clean stop
    process.wait(timeout=10)
    context.__exit__(None, None, None)

    context, _, _ = start(state, creds_file, receiver)
    try:
        arrived = receiver.wait_for("payment.completed", lambda e: e["id"] == event.id, timeout=20)
        assert arrived["subject"]["transaction_id"] == "tbx-999-0badf00d"
        assert arrived["date"] == event.date
    finally:
        context.__exit__(None, None, None)  # a clean stop: published items deleted

    context, _, _ = start(state, creds_file, receiver)  # nothing left to publish
    try:
        time.sleep(2)
        assert len([e for e in receiver.verified_events() if e["id"] == event.id]) == 1
    finally:
        context.__exit__(None, None, None)
