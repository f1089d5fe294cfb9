"""`webstore clock run --table/--region` against a deployed-like table (moto): what it prints, and
that its events ride its transactions into the table's outbox (the stage's stream and pipe put
them on the bus; the tool itself sends nothing to the bus)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import boto3
import pytest
import time_machine

from infra.cli import main
from tests.integration.storefront.test_checkout import payments
from tests.support.demo import DemoStore
from tests.support.environment import TABLE
from tests.support.invocation import Invoke
from webstore.repo.outbox import OutboxRepository

from .support import buy

START = datetime(2026, 6, 1, 12, tzinfo=UTC)
RENEWAL = datetime(2026, 7, 1, 12, tzinfo=UTC)
BUS = "webstore-clock-test"


def test_clock_run_against_a_table_renews_and_writes_its_events_to_the_outbox(
    demo: DemoStore, invoke: Invoke, capsys: pytest.CaptureFixture[str]
) -> None:
    events = boto3.client("events", region_name="us-east-1")
    sqs = boto3.client("sqs", region_name="us-east-1")
    events.create_event_bus(Name=BUS)
    queue = sqs.create_queue(QueueName="clock-events")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    events.put_rule(Name="all", EventBusName=BUS, EventPattern=json.dumps({"source": ["webstore"]}))
    events.put_targets(Rule="all", EventBusName=BUS, Targets=[{"Id": "q", "Arn": arn}])
    with time_machine.travel(START, tick=False):
        first = buy(invoke, demo, {"package_id": 1})
    until = (RENEWAL + timedelta(minutes=1)).isoformat()
    argv = [
        "clock", "run", "--until", until, "--table", TABLE, "--region", "us-east-1",
        "--storefront-url", "https://shop.example.com", "--operator-url", "https://plugin.example.com",
    ]  # fmt: skip
    capsys.readouterr()
    with time_machine.travel(RENEWAL + timedelta(minutes=1), tick=False):
        assert main(argv) == 0
        printed = capsys.readouterr().out.splitlines()
        assert main([*argv, "--event-bus", BUS]) == 0  # still accepted; nothing goes there
        assert capsys.readouterr().out.strip() == f"Nothing due up to {until}"
        received = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10).get("Messages", [])
    assert printed[0].startswith(f"renewal charged: account 1 {first['txn_id']} (payment ")
    assert printed[1] == f"1 item(s) due up to {until}: 1 renewal charged"
    assert len(payments(invoke, demo)) == 2
    assert received == []
    written = OutboxRepository(demo.table).waiting()
    renewed = [event for event in written if event.type == "recurring-payment.renewed"]
    assert len(renewed) == 1 and renewed[0].subject["reference"] == first["txn_id"]
    completed = [event.subject["transaction_id"] for event in written if event.type == "payment.completed"]
    assert len(completed) == 2 and first["txn_id"] in completed  # the first payment's, the renewal's
