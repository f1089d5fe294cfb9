"""`webstore clock run --table/--region` against a deployed-like table (moto): what it prints, and
that its events go to the stage's bus (a rule → queue, as the stack wires webhooks)."""

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

from .support import buy

START = datetime(2026, 6, 1, 12, tzinfo=UTC)
RENEWAL = datetime(2026, 7, 1, 12, tzinfo=UTC)
BUS = "webstore-clock-test"


def test_clock_run_against_a_table_renews_and_publishes_to_the_bus(
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
        "clock", "run", "--until", until, "--table", TABLE, "--region", "us-east-1", "--event-bus", BUS,
        "--storefront-url", "https://shop.example.com", "--operator-url", "https://plugin.example.com",
    ]  # fmt: skip
    capsys.readouterr()
    with time_machine.travel(RENEWAL + timedelta(minutes=1), tick=False):
        assert main(argv) == 0
        printed = capsys.readouterr().out.splitlines()
        assert main(argv) == 0
        assert capsys.readouterr().out.strip() == f"Nothing due up to {until}"
        # Read while July lasts: moto drops messages older than the queue's retention.
        received = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)["Messages"]
    assert printed[0].startswith(f"renewal charged: account 1 {first['txn_id']} (payment ")
    assert printed[1] == f"1 item(s) due up to {until}: 1 renewal charged"
    assert len(payments(invoke, demo)) == 2
    types = {json.loads(m["Body"])["detail-type"] for m in received}
    assert "recurring-payment.renewed" in types
