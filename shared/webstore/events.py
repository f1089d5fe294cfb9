"""Domain events and the publisher port. Use cases publish; adapters deliver.

In AWS the publisher puts each event on the EventBridge bus (detail-type = webhook type);
locally an in-process bus hands it straight to the subscribed handlers.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, Protocol

from aws_lambda_powertools import Logger

logger = Logger(child=True)

SOURCE = "webstore"


@dataclass(frozen=True)
class DomainEvent:
    """One webhook-worthy fact: `type` is the webhook type (e.g. `payment.completed`)."""

    type: str
    account_id: int
    subject: dict[str, Any]
    id: str = field(default_factory=lambda: str(uuid.uuid4()))
    date: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    # A redelivery from the panel names the endpoints it is for; None: every subscribed endpoint.
    endpoints: tuple[int, ...] | None = None

    def detail(self) -> dict[str, Any]:
        detail = {"id": self.id, "account_id": self.account_id, "date": self.date, "subject": self.subject}
        if self.endpoints is not None:
            detail["endpoints"] = list(self.endpoints)
        return detail


class Publisher(Protocol):
    def publish(self, event: DomainEvent) -> None: ...


class EventNotPublished(RuntimeError):
    """EventBridge refused an event on every attempt: the caller's request or message fails, so
    the event is not lost silently (a message is retried by its queue or stream)."""


# Seconds to wait before each retry of a failed entry (PutEvents reports failures per entry, in
# a 200 response, e.g. ThrottlingException or InternalFailure; the client's retries do not see them).
PUBLISH_RETRY_DELAYS = (0.05, 0.2, 0.5)


class EventBridgePublisher:
    """Puts each event on the bus. The client is made on the first publish: most functions never
    publish, and making an EventBridge client (loading its service model) adds 40-60 ms to a
    cold start (scripts/bench_cold_start.py)."""

    def __init__(
        self,
        client_factory: Callable[[], Any],
        bus_name: str,
        *,
        retry_delays: tuple[float, ...] = PUBLISH_RETRY_DELAYS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._client_factory = client_factory
        self.bus_name = bus_name
        self.retry_delays = retry_delays
        self._sleep = sleep

    @cached_property
    def client(self) -> Any:
        return self._client_factory()

    def publish(self, event: DomainEvent) -> None:
        entry = {
            "Source": SOURCE,
            "DetailType": event.type,
            "Detail": json.dumps(event.detail(), default=str),
            "EventBusName": self.bus_name,
        }
        failed = self._put(entry)
        for delay in self.retry_delays:
            if failed is None:
                return
            logger.warning("event not accepted; retrying", extra={"event_id": event.id, "failure": failed})
            self._sleep(delay)
            failed = self._put(entry)
        if failed is not None:
            raise EventNotPublished(
                f"EventBridge refused event {event.id} ({event.type}) "
                f"{len(self.retry_delays) + 1} times: {failed}"
            )

    def _put(self, entry: dict[str, str]) -> dict[str, Any] | None:
        """The failed entry of one PutEvents call, or None when the bus accepted the event."""
        response = self.client.put_events(Entries=[entry])
        if not response.get("FailedEntryCount"):
            return None
        entries = response.get("Entries") or [{}]
        result: dict[str, Any] = entries[0]
        return result


class InProcessBus:
    """The local stack's bus: delivers each event to every subscriber, in process. It keeps the
    events it published, for tests to look at: the last PUBLISHED_KEPT to twice as many (a
    `webstore serve` running for days would otherwise hold every event it ever published)."""

    PUBLISHED_KEPT = 1000

    def __init__(self) -> None:
        self.subscribers: list[Callable[[DomainEvent], None]] = []
        self.published: list[DomainEvent] = []

    def subscribe(self, subscriber: Callable[[DomainEvent], None]) -> None:
        self.subscribers.append(subscriber)

    def publish(self, event: DomainEvent) -> None:
        self.published.append(event)
        if len(self.published) > 2 * self.PUBLISHED_KEPT:
            del self.published[: -self.PUBLISHED_KEPT]
        logger.info("event published", extra={"event_type": event.type, "event_id": event.id})
        for subscriber in self.subscribers:
            try:
                subscriber(event)
            except Exception:
                logger.exception("event subscriber failed", extra={"event_id": event.id})
