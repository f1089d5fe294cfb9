"""The local stack's table stream: committed outbox items → the in-process bus.

In AWS, DynamoDB Streams and EventBridge Pipes publish every outbox item a transaction wrote
(webstore.repo.outbox). Locally the same happens from the table the local stack (and the tests)
talk to: `attach(client)` hooks the DynamoDB client, and after a PutItem or TransactWriteItems
that succeeded (the write is committed) publishes the outbox items it carried, in order, to
the in-process bus. Nothing on the request path waits for the table: the published items are
deleted later, by `flush()` or the background thread `start()` runs: once published, or, when
the bus's consumers acknowledge its events (`consumer_acknowledges()`, once per consumer: the
local webhook and mail workers do), once every one of them is done with it (delivered
everywhere it goes, or given up), so a stop before a delivery or an e-mail also publishes the
event again at the next start.

There is one stream per process and bus (webstore.services keeps it across `reset()`): the
stream the consumers acknowledge to must be the one whose items they are, whichever client (a
Services rebuilt after the environment changed) wrote them; a stream of its own per Services
deleted every item as soon as it was published, its consumers' word going to another stream.

A crash between the commit and the publish leaves the outbox item in the table: `sweep()` (run
by `webstore serve` at start) publishes every outbox item still there, so such an event is
delayed, never lost. An item published but not yet deleted when the process died is published
again; consumers dedupe by event id (webhook delivery claims), as they do in AWS, where a stream
record may also be delivered twice.
"""

from __future__ import annotations

import contextvars
import threading
from collections import deque
from typing import Any

from aws_lambda_powertools import Logger

from webstore.events import DomainEvent, Publisher
from webstore.repo.outbox import OutboxRepository, events_written

logger = Logger(child=True)

WRITES_WITH_ITEMS = ("PutItem", "TransactWriteItems")
_CONTEXT_KEY = "webstore_outbox_events"


class LocalStream:
    def __init__(self, outbox: OutboxRepository, bus: Publisher) -> None:
        self.outbox = outbox
        self.bus = bus
        self._published: deque[str] = deque()  # ids done with, their items not yet deleted
        self._consumers = 0  # consumers that say when they are done with an event
        self._in_flight: dict[str, int] = {}  # published: event id → acknowledgements still owed
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopping = False

    # --- committed writes ---

    def attach(self, client: Any) -> None:
        """Hook `client`: outbox items of its successful writes are published (once per client)."""
        for operation in WRITES_WITH_ITEMS:
            client.meta.events.register(
                f"before-parameter-build.dynamodb.{operation}",
                self._noted,
                unique_id=f"webstore-local-stream-note-{operation}",
            )
            client.meta.events.register(
                f"after-call.dynamodb.{operation}",
                self._committed,
                unique_id=f"webstore-local-stream-commit-{operation}",
            )

    def _noted(self, params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        events = events_written(model.name, params)
        if events:
            context[_CONTEXT_KEY] = events

    def _committed(self, http_response: Any, context: dict[str, Any], **_: Any) -> None:
        events = context.pop(_CONTEXT_KEY, None)
        if events and http_response.status_code < 300:
            self.publish(events)

    def publish(self, events: list[DomainEvent]) -> None:
        """Hand committed events to the bus, each once, in order; their items are deleted later.
        The bus's subscribers run outside the writer's context, as a stream's consumers do."""
        contextvars.Context().run(self._publish, events)

    def _publish(self, events: list[DomainEvent]) -> None:
        for event in events:
            consumers = self._consumers
            if consumers:
                with self._wake:  # owed before any consumer can answer (they run on threads)
                    self._in_flight[event.id] = self._in_flight.get(event.id, 0) + consumers
                self.bus.publish(event)
            else:
                self.bus.publish(event)
                self._done(event.id)

    def consumer_acknowledges(self) -> None:
        """One more consumer of the bus calls `acknowledge` for every event it is handed: an
        event's item is deleted only once each of them has (a consumer that drops an event
        never does, and the item waits for the next start)."""
        with self._wake:
            self._consumers += 1

    def acknowledge(self, event: DomainEvent) -> None:
        """A consumer is done with `event` (an event this stream did not publish is ignored).
        Published twice (a sweep, a redelivery), it waits for each copy's acknowledgements."""
        with self._wake:
            owed = self._in_flight.get(event.id)
            if owed is None:
                return
            if owed > 1:
                self._in_flight[event.id] = owed - 1
                return
            del self._in_flight[event.id]
        self._done(event.id)

    def _done(self, event_id: str) -> None:
        with self._wake:
            self._published.append(event_id)
            self._wake.notify()

    # --- upkeep ---

    def sweep(self) -> int:
        """Publish every outbox item still in the table (written, never published: the process
        stopped in between); how many. Run at start, before requests are served."""
        waiting = self.outbox.waiting()
        if waiting:
            logger.info("publishing events written before a stop", extra={"events": len(waiting)})
            self.publish(waiting)
        return len(waiting)

    def flush(self) -> int:
        """Delete the items of the events published so far; how many."""
        done = 0
        while True:
            with self._wake:
                if not self._published:
                    return done
                event_id = self._published.popleft()
            try:
                self.outbox.delete(event_id)
            except Exception:  # kept: the next start publishes it again (consumers dedupe)
                logger.exception("outbox item not deleted", extra={"event_id": event_id})
            done += 1

    def start(self) -> None:
        """Delete published items from a background thread (the local stack)."""
        if self._thread is not None:
            return
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="local-stream", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        with self._wake:
            self._stopping = True
            self._wake.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        self.flush()

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._published and not self._stopping:
                    self._wake.wait()
                if self._stopping:
                    return
            self.flush()
