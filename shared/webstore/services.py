"""The composition root: the table, the publisher and the clock every use case receives.

Use cases write their events into the table (webstore.repo.outbox); the publisher is what the
table's stream publishes them to (and the few consumers that publish themselves). Locally
(`events = local`) the table's client is hooked to the in-process bus by webstore.local_stream,
as DynamoDB Streams and EventBridge Pipes are in AWS."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache

import boto3
from botocore.config import Config

from webstore.events import EventBridgePublisher, InProcessBus, Publisher
from webstore.local_stream import LocalStream
from webstore.repo import Table, Transaction
from webstore.repo.outbox import OutboxRepository
from webstore.secret_box import SecretBox, secret_box
from webstore.settings import Settings, get_settings


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class Services:
    settings: Settings
    table: Table
    publisher: Publisher
    # Seals and opens webhook signing secrets; reads its key on first use only.
    secrets: SecretBox
    clock: Callable[[], datetime] = field(default=utc_now)
    # The local stack's table stream (events = local): publishes committed outbox items.
    stream: LocalStream | None = None

    def now(self) -> datetime:
        return self.clock()

    def transaction(self) -> Transaction:
        """A new all-or-nothing write: repositories add their labelled actions, the use case
        commits it."""
        return Transaction(self.table)


_BOTO_CONFIG = Config(retries={"mode": "standard", "max_attempts": 3}, connect_timeout=2, read_timeout=5)
_local_bus = InProcessBus()


def local_bus() -> InProcessBus:
    return _local_bus


def build_services(settings: Settings) -> Services:
    dynamodb = boto3.client(
        "dynamodb", region_name=settings.region, endpoint_url=settings.dynamodb_endpoint, config=_BOTO_CONFIG
    )
    table = Table(dynamodb, settings.table_name)
    publisher: Publisher
    stream: LocalStream | None = None
    if settings.events == "local":
        publisher = _local_bus
        stream = LocalStream(OutboxRepository(table), _local_bus)
        stream.attach(dynamodb)
    else:
        publisher = EventBridgePublisher(
            lambda: boto3.client("events", region_name=settings.region, config=_BOTO_CONFIG),
            settings.event_bus_name,
        )
    return Services(
        settings=settings,
        table=table,
        publisher=publisher,
        secrets=secret_box(settings),
        stream=stream,
    )


@lru_cache(maxsize=1)
def get_services() -> Services:
    return build_services(get_settings())


def reset() -> None:
    """Forget cached settings and clients (tests change the environment between cases)."""
    get_settings.cache_clear()
    get_services.cache_clear()
