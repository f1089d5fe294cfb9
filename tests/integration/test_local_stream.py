"""The local stack's table stream and its consumers (webstore.local_stream, the local webhook and
mail workers), through the real services, handlers and mail consumer under moto.

An outbox item is deleted only once every consumer of the bus is done with its event, so a stop
(or `kill -9`) before a delivery or an e-mail publishes the event again at the next start, and
the consumers' claims keep each to one. What `webstore serve` does is modelled here: the
consumers subscribe, the services are rebuilt (serve changes its environment after subscribing
them: the mail transport, the shop's store), the stream sweeps and runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from tests.support.cancellation import buy_subscription
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore import services as services_module
from webstore.event_types import EventType
from webstore.events import DomainEvent
from webstore.mail import Message
from webstore.mail import local as local_mail
from webstore.repo.outbox import OutboxRepository
from webstore.services import get_services, local_bus
from webstore.webhooks.local import LocalDispatcher, acknowledging

EMAIL = "steve@example.com"


@dataclass
class Done:
    retry_needed: bool = False


@dataclass
class Consumer:
    """A bus consumer that is done with each event as soon as it is tried (a webhook worker
    whose receiver answered)."""

    seen: list[DomainEvent] = field(default_factory=list)

    def dispatch(self, event: DomainEvent) -> Done:
        self.seen.append(event)
        return Done()


@dataclass
class Inbox:
    """The mail transport: what was handed to it."""

    messages: list[Message] = field(default_factory=list)

    def send(self, message: Message) -> str:
        self.messages.append(message)
        return f"local-{len(self.messages)}"


@pytest.fixture
def process(demo: DemoStore, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A process of its own: a new table stream, the local bus with no subscribers and nothing
    published yet (all put back after the test)."""
    monkeypatch.setattr(services_module, "_local_stream", None)
    monkeypatch.setattr(local_bus(), "subscribers", [])
    monkeypatch.setattr(local_bus(), "published", [])
    services_module.reset()
    yield
    services_module.reset()


def restart(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process stopped: what it held in memory (queues, the stream) is gone; the table stays."""
    monkeypatch.setattr(services_module, "_local_stream", None)
    monkeypatch.setattr(local_bus(), "subscribers", [])
    services_module.reset()


def waiting() -> set[str]:
    return {e.id for e in OutboxRepository(get_services().table).waiting()}


def test_consumers_subscribed_before_the_services_are_rebuilt_hold_the_items_written_after(
    process: None,
) -> None:
    bus = local_bus()
    first = get_services()  # what serve's webhook worker is given
    webhooks = LocalDispatcher(Consumer(), on_done=acknowledging(bus, first))
    bus.subscribe(webhooks.submit)
    services_module.reset()  # serve sets the mail transport: the services are built again
    rebuilt = get_services()
    assert rebuilt.stream is first.stream  # one table stream per process
    mail = LocalDispatcher(Consumer(), label="mail", on_done=acknowledging(bus, rebuilt))
    bus.subscribe(mail.submit)
    event = DomainEvent(type="payment.completed", account_id=1, subject={"transaction_id": "tbx-1"})
    assert rebuilt.stream is not None

    OutboxRepository(rebuilt.table).put(event)  # committed through the rebuilt services' client
    rebuilt.stream.flush()  # what the stream's thread does
    assert event.id in waiting()  # nobody is done with it: a kill now publishes it at the next start

    assert mail.run_due() == 1  # nothing to send: done at once
    rebuilt.stream.flush()
    assert event.id in waiting()  # the webhook worker, subscribed first, is not done with it yet

    assert webhooks.run_due() == 1
    rebuilt.stream.flush()
    assert event.id not in waiting()


def test_a_stop_before_the_receipt_is_sent_sends_it_after_the_restart_once(
    process: None, invoke: Invoke, demo: DemoStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    inbox = Inbox()
    bus = local_bus()
    services = get_services()
    webhooks = LocalDispatcher(Consumer(), on_done=acknowledging(bus, services))
    bus.subscribe(webhooks.submit)
    mailer = local_mail.subscribe(bus, services, sender=inbox)
    mailer.stop()  # Ctrl-C: the mail worker stops with the receipt still queued

    buy_subscription(invoke, demo, email=EMAIL)
    [paid] = [e for e in bus.published if e.type == EventType.PAYMENT_COMPLETED]
    assert webhooks.run_due() >= 1  # the webhook is delivered before the stop
    stream = services.stream
    assert stream is not None
    stream.flush()
    assert inbox.messages == []
    assert paid.id in waiting()  # held for the mail worker

    restart(monkeypatch)
    services = get_services()
    mailer = local_mail.subscribe(local_bus(), services, sender=inbox)
    try:
        assert services.stream is not None and services.stream is not stream
        assert services.stream.sweep() >= 1  # the next start publishes it again
        assert mailer.wait_idle(30)
    finally:
        mailer.stop()
    services.stream.flush()
    [receipt] = inbox.messages
    assert (receipt.to, receipt.idempotency_key) == (EMAIL, f"{paid.id}.receipt")
    assert paid.id not in waiting()  # sent: its item is gone

    # Killed after the send, before the item went (put back): published again, not sent again.
    OutboxRepository(get_services().table).put(paid)
    restart(monkeypatch)
    services = get_services()
    mailer = local_mail.subscribe(local_bus(), services, sender=inbox)
    try:
        assert services.stream is not None and services.stream.sweep() >= 1
        assert mailer.wait_idle(30)
    finally:
        mailer.stop()
    assert len(inbox.messages) == 1
