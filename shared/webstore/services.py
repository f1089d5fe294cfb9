"""The composition root: the table, the publisher and the clock every use case receives."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache

import boto3
from botocore.config import Config

from webstore.events import EventBridgePublisher, InProcessBus, Publisher
from webstore.repo import Table, Transaction
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
    publisher: Publisher
    if settings.events == "local":
        publisher = _local_bus
    else:
        publisher = EventBridgePublisher(
            lambda: boto3.client("events", region_name=settings.region, config=_BOTO_CONFIG),
            settings.event_bus_name,
        )
    return Services(
        settings=settings,
        table=Table(dynamodb, settings.table_name),
        publisher=publisher,
        secrets=secret_box(settings),
    )


@lru_cache(maxsize=1)
def get_services() -> Services:
    return build_services(get_settings())


def reset() -> None:
    """Forget cached settings and clients (tests change the environment between cases)."""
    get_settings.cache_clear()
    get_services.cache_clear()
