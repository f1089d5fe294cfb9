"""The Discord consumer (functions/events/sync_discord_roles.py) under moto: SQS records of the
bus's events in, roles applied through the store's own application (its sealed bot token), a
record that still owes a call reported as a batch item failure and delivered once later."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
import time_machine

from functions.events import sync_discord_roles
from tests.integration.mail.conftest import envelope
from tests.integration.subscriptions.support import buy
from tests.support.demo import DemoStore
from tests.support.discord_standin import StandInDiscord
from tests.support.invocation import Invoke
from tests.support.lambda_events import LambdaContext
from webstore import services as services_module
from webstore.events import DomainEvent
from webstore.repo.audit_log import Audit
from webstore.repo.discord import DiscordApp, DiscordRepository
from webstore.sealing import seal
from webstore.services import get_services

from .conftest import GUILD, STEVE_DISCORD, SUPPORTER, VIP_ROLE
from .test_role_sync import ACCOUNT, set_up

REGION = "us-east-1"
START = datetime(2026, 6, 1, 12, tzinfo=UTC)


@pytest.fixture
def connected(
    aws: None, discord: StandInDiscord, monkeypatch: pytest.MonkeyPatch
) -> Iterator[StandInDiscord]:
    """Discord is the stand-in; the demo store's application and bot are connected."""
    monkeypatch.setenv("WEBSTORE_DISCORD_API_URL", discord.base_url)
    services_module.reset()
    sync_discord_roles._cache.clear()
    yield discord
    services_module.reset()
    sync_discord_roles._cache.clear()


def connect(discord: StandInDiscord) -> None:
    secrets = get_services().secrets
    app = DiscordApp(
        client_id=discord.client_id,
        client_secret_sealed=seal(secrets, discord.client_secret),
        bot_token_sealed=seal(secrets, discord.bot_token),
        bot_user_id=discord.bot_id,
        updated_at=START,
    )
    DiscordRepository(get_services().table).save_app(ACCOUNT, app, Audit("o", "discord.connect", "t", START))


def deliver(events: list[DomainEvent]) -> dict[str, Any]:
    sqs = boto3.client("sqs", region_name=REGION)
    url = sqs.create_queue(QueueName="discord-buffer", Attributes={"VisibilityTimeout": "0"})["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    for event in events:
        sqs.send_message(QueueUrl=url, MessageBody=json.dumps(envelope(event)))
    messages = sqs.receive_message(
        QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["All"], WaitTimeSeconds=0
    ).get("Messages", [])
    records = [
        {
            "messageId": m["MessageId"],
            "receiptHandle": m["ReceiptHandle"],
            "body": m["Body"],
            "attributes": m["Attributes"],
            "messageAttributes": {},
            "md5OfBody": m["MD5OfBody"],
            "eventSource": "aws:sqs",
            "eventSourceARN": arn,
            "awsRegion": REGION,
        }
        for m in messages
    ]
    response: dict[str, Any] = sync_discord_roles.handler({"Records": records}, LambdaContext())
    for m in messages:  # done with them (a failed one is sent again by the test, as SQS would)
        sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    return response


def test_the_consumer_grants_and_reports_a_failed_record_for_retry(
    demo: DemoStore, invoke: Invoke, connected: StandInDiscord, published: list[DomainEvent]
) -> None:
    discord = connected
    connect(discord)
    set_up(discord)
    with time_machine.travel(START, tick=False):
        buy(invoke, demo, {"package_id": 1})
        completed = [e for e in published if e.type == "payment.completed"]
        discord.fail_next(503, match="/roles/")
        failed = deliver(completed)
        assert len(failed["batchItemFailures"]) == 1
        assert discord.roles_of(GUILD, STEVE_DISCORD) != {VIP_ROLE, SUPPORTER}
        assert deliver(completed) == {"batchItemFailures": []}  # the queue's next delivery
        assert deliver(list(published)) == {"batchItemFailures": []}  # started, and again: nothing
    assert discord.roles_of(GUILD, STEVE_DISCORD) == {VIP_ROLE, SUPPORTER}
    assert len(discord.changes()) == 2
    log = DiscordRepository(get_services().table).recent(ACCOUNT)
    assert sorted(e.status for e in log) == ["done", "done", "retry"]
