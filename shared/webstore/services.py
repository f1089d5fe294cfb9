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
from pathlib import Path
from typing import TYPE_CHECKING

import boto3
from botocore.config import Config

from webstore.events import EventBridgePublisher, InProcessBus, Publisher
from webstore.repo import Table, Transaction
from webstore.secret_box import SecretBox, secret_box
from webstore.settings import Settings, get_settings

if TYPE_CHECKING:  # imported where used: a function in AWS sends mail or streams locally seldom or never
    from webstore.local_stream import LocalStream
    from webstore.mail import MailSender


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
    # How e-mail leaves (webstore.mail): made on first use, from the settings.
    mailer: MailSender | None = None

    def mail_sender(self) -> MailSender:
        if self.mailer is None:
            self.mailer = build_mail_sender(self.settings)
        return self.mailer

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


_local_stream: LocalStream | None = None


def local_stream(table: Table) -> LocalStream:
    """The process's table stream onto the local bus (one, like the bus: `reset()` keeps it),
    hooked to `table`'s client and deleting through it. Its consumers (the local webhook and
    mail workers) acknowledge to it whichever Services they were given, and it holds back
    every item until they are done, whichever Services' client wrote it (webstore.local_stream)."""
    from webstore.local_stream import LocalStream
    from webstore.repo.outbox import OutboxRepository

    global _local_stream
    if _local_stream is None:
        _local_stream = LocalStream(OutboxRepository(table), _local_bus)
    else:
        _local_stream.outbox = OutboxRepository(table)
    _local_stream.attach(table.client)
    return _local_stream


def build_services(settings: Settings) -> Services:
    dynamodb = boto3.client(
        "dynamodb", region_name=settings.region, endpoint_url=settings.dynamodb_endpoint, config=_BOTO_CONFIG
    )
    table = Table(dynamodb, settings.table_name)
    publisher: Publisher
    stream: LocalStream | None = None
    if settings.events == "local":
        publisher = _local_bus
        stream = local_stream(table)
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


def build_mail_sender(settings: Settings) -> MailSender:
    """The adapter the settings name (`mail_transport`); imported here, so a function that sends
    no mail does not load them."""
    from webstore.mail import NoMail
    from webstore.mail.ses import SesSender
    from webstore.mail.smtp import FileSender, SmtpSender, parse_relay

    if settings.mail_transport == "ses":
        return SesSender(
            lambda: boto3.client("sesv2", region_name=settings.region, config=_BOTO_CONFIG),
            configuration_set=settings.mail_configuration_set or None,
        )
    if settings.mail_transport == "smtp":
        host, port = parse_relay(settings.mail_smtp)
        return SmtpSender(host, port)
    if settings.mail_transport == "files" and settings.mail_dir:
        return FileSender(Path(settings.mail_dir))
    return NoMail()


@lru_cache(maxsize=1)
def get_services() -> Services:
    return build_services(get_settings())


def reset() -> None:
    """Forget cached settings and clients (tests change the environment between cases)."""
    get_settings.cache_clear()
    get_services.cache_clear()
