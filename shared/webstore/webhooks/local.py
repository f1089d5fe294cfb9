"""The local stack's webhook delivery: the same `WebhookDispatcher`, run off the request path.

`subscribe(bus, services)` (called by `webstore serve`) hooks a background worker to the
in-process bus. Publishing only enqueues (never blocks a request); one daemon thread delivers,
and an event that still owes an endpoint a delivery (or a validation) is retried on the same
schedule as SQS retries it in AWS (`retry.next_retry_delay`: 30 s, 1 min, 2 min … hourly, for
about five hours), then given up on with an error in the log, as a message goes to the
dead-letter queue. A receiver restarted during development therefore loses nothing. The queue is
bounded: past `QUEUE_LIMIT` waiting events, new ones are logged and dropped. Delivery ids,
signatures, validation and the attempt history are as in AWS.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from aws_lambda_powertools import Logger

from webstore.events import DomainEvent, InProcessBus
from webstore.services import Services
from webstore.webhooks.delivery import WebhookDispatcher
from webstore.webhooks.http import Sender
from webstore.webhooks.policy import Resolver, system_resolver
from webstore.webhooks.retry import next_retry_delay

logger = Logger(child=True)

QUEUE_LIMIT = 1000
# Failed tries so far → seconds before the next one, or None when the budget is spent.
RetrySchedule = Callable[[int], float | None]


def fixed_schedule(delays: Sequence[float]) -> RetrySchedule:
    """A short schedule (tests): retry after each of `delays` in turn, then give up."""
    steps = tuple(delays)
    return lambda failed: steps[failed - 1] if failed <= len(steps) else None


class Outcome(Protocol):
    @property
    def retry_needed(self) -> bool: ...


class Dispatches(Protocol):
    """A consumer of the bus's events (webhook delivery, e-mail): what is still owed is retried."""

    def dispatch(self, event: DomainEvent) -> Outcome: ...


class LocalDispatcher:
    """A bounded retry queue worked by one daemon thread (`label` names its work in the log:
    `webhook`, `mail`).

    `clock` gives the seconds that due times are measured in (monotonic by default; tests that
    travel in time pass `time.time` and call `run_due` instead of starting the thread)."""

    def __init__(
        self,
        dispatcher: Dispatches,
        *,
        label: str = "webhook",
        schedule: RetrySchedule = next_retry_delay,
        limit: int = QUEUE_LIMIT,
        clock: Callable[[], float] = time.monotonic,
        on_done: Callable[[DomainEvent], None] | None = None,
    ) -> None:
        self.dispatcher = dispatcher
        self.label = label
        # Told when an event is finished with (delivered, or given up): the local table stream
        # deletes its outbox item then (an event dropped by a full queue stays for the next start).
        self.on_done = on_done
        self.schedule = schedule
        self.limit = limit
        self.clock = clock
        self._due: list[tuple[float, int, int, DomainEvent]] = []  # (when, seq, attempt, event)
        self._seq = itertools.count()
        self._busy = 0
        self._stopping = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name=f"{label}-delivery", daemon=True)

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
                logger.error(f"{self.label} queue full; event dropped", extra={"event_id": event.id})
                return
            heapq.heappush(self._due, (self.clock() + delay, next(self._seq), attempt, event))
            self._cond.notify_all()

    def pending(self) -> int:
        """Events waiting for a (re)try."""
        with self._cond:
            return len(self._due)

    def run_due(self) -> int:
        """Try every event that is due by `clock` now, in this thread; how many were tried."""
        tried = 0
        while True:
            with self._cond:
                if not self._due or self._due[0][0] > self.clock():
                    return tried
                _, _, attempt, event = heapq.heappop(self._due)
            self._attempt(event, attempt)
            tried += 1

    def _next(self) -> tuple[int, DomainEvent] | None:
        with self._cond:
            while not self._stopping:
                if not self._due:
                    self._cond.wait()
                    continue
                wait = self._due[0][0] - self.clock()
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
            logger.exception(f"{self.label} dispatch failed", extra={"event_id": event.id})
            retry = True
        if not retry:
            self._finished(event)
            return
        delay = self.schedule(attempt)
        if delay is None:
            logger.error(f"{self.label} delivery given up", extra={"event_id": event.id, "attempts": attempt})
            self._finished(event)
            return
        logger.info(
            f"{self.label} delivery will be retried",
            extra={"event_id": event.id, "attempts": attempt, "retry_in_seconds": delay},
        )
        self._schedule(event, attempt + 1, delay)

    def _finished(self, event: DomainEvent) -> None:
        if self.on_done is not None:
            try:
                self.on_done(event)
            except Exception:
                logger.exception(f"{self.label} event not acknowledged", extra={"event_id": event.id})


def acknowledging(bus: InProcessBus, services: Services) -> Callable[[DomainEvent], None] | None:
    """A new consumer of `bus` acknowledges to the local table stream that feeds it, which then
    deletes an event's outbox item only once this consumer too is done with the event (the
    worker's `on_done`); None when no stream feeds `bus` (a bus of the caller's own)."""
    stream = services.stream
    if stream is None or stream.bus is not bus:
        return None
    stream.consumer_acknowledges()
    return stream.acknowledge


def subscribe(
    bus: InProcessBus,
    services: Services,
    *,
    sender: Sender | None = None,
    resolver: Resolver = system_resolver,
    retry_delays: Sequence[float] | None = None,
) -> LocalDispatcher:
    """Deliver the local bus's events to webhook receivers in the background; returns the worker.
    `retry_delays` replaces the AWS schedule with a short fixed one (tests)."""
    worker = LocalDispatcher(
        WebhookDispatcher(services, sender=sender, resolver=resolver),
        schedule=next_retry_delay if retry_delays is None else fixed_schedule(retry_delays),
        on_done=acknowledging(bus, services),
    )
    worker.start()
    bus.subscribe(worker.submit)
    return worker
