"""The local stack's webhook delivery: the same `WebhookDispatcher`, run off the request path.

`subscribe(bus, services)` (called by `webstore serve`) hooks a background worker to the
in-process bus. Publishing only enqueues (never blocks a request); one daemon thread delivers,
and an event that still owes an endpoint a delivery is retried after 1, 2, 4, 8 and 16 seconds,
then given up on with an error in the log. The queue is bounded: past `QUEUE_LIMIT` waiting
events, new ones are logged and dropped (a local receiver that is down for long is not worth
unbounded memory). Delivery ids, signatures, validation and the history are as in AWS.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Sequence

from aws_lambda_powertools import Logger

from webstore.events import DomainEvent, InProcessBus
from webstore.services import Services
from webstore.webhooks.delivery import WebhookDispatcher
from webstore.webhooks.http import Sender
from webstore.webhooks.policy import Resolver, system_resolver

logger = Logger(child=True)

RETRY_DELAYS: tuple[float, ...] = (1, 2, 4, 8, 16)
QUEUE_LIMIT = 1000


class LocalDispatcher:
    """A bounded retry queue worked by one daemon thread."""

    def __init__(
        self,
        dispatcher: WebhookDispatcher,
        *,
        retry_delays: Sequence[float] = RETRY_DELAYS,
        limit: int = QUEUE_LIMIT,
    ) -> None:
        self.dispatcher = dispatcher
        self.retry_delays = tuple(retry_delays)
        self.limit = limit
        self._due: list[tuple[float, int, int, DomainEvent]] = []  # (when, seq, attempt, event)
        self._seq = itertools.count()
        self._busy = 0
        self._stopping = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="webhook-delivery", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        self._thread.join(timeout)

    def submit(self, event: DomainEvent) -> None:
        """The bus subscriber: enqueue and return at once."""
        self._schedule(event, attempt=1, delay=0)

    def wait_idle(self, timeout: float) -> bool:
        """True once nothing is queued or running (tests and graceful shutdown)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._due or self._busy:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(remaining)
        return True

    def _schedule(self, event: DomainEvent, attempt: int, delay: float) -> None:
        with self._cond:
            if len(self._due) >= self.limit:
                logger.error("webhook queue full; event dropped", extra={"event_id": event.id})
                return
            heapq.heappush(self._due, (time.monotonic() + delay, next(self._seq), attempt, event))
            self._cond.notify_all()

    def _next(self) -> tuple[int, DomainEvent] | None:
        with self._cond:
            while not self._stopping:
                if not self._due:
                    self._cond.wait()
                    continue
                wait = self._due[0][0] - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                _, _, attempt, event = heapq.heappop(self._due)
                self._busy += 1
                return attempt, event
            return None

    def _run(self) -> None:
        while (job := self._next()) is not None:
            attempt, event = job
            try:
                self._attempt(event, attempt)
            finally:
                with self._cond:
                    self._busy -= 1
                    self._cond.notify_all()

    def _attempt(self, event: DomainEvent, attempt: int) -> None:
        try:
            retry = self.dispatcher.dispatch(event).retry_needed
        except Exception:
            logger.exception("webhook dispatch failed", extra={"event_id": event.id})
            retry = True
        if not retry:
            return
        if attempt > len(self.retry_delays):
            logger.error("webhook delivery given up", extra={"event_id": event.id, "attempts": attempt})
            return
        self._schedule(event, attempt + 1, self.retry_delays[attempt - 1])


def subscribe(
    bus: InProcessBus,
    services: Services,
    *,
    sender: Sender | None = None,
    resolver: Resolver = system_resolver,
    retry_delays: Sequence[float] = RETRY_DELAYS,
) -> LocalDispatcher:
    """Deliver the local bus's events to webhook receivers in the background; returns the worker."""
    worker = LocalDispatcher(
        WebhookDispatcher(services, sender=sender, resolver=resolver), retry_delays=retry_delays
    )
    worker.start()
    bus.subscribe(worker.submit)
    return worker
