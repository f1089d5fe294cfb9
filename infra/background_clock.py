"""The local stack's clock: the subscription processor, every few seconds, on a background thread.

In AWS a schedule invokes the processor function once a minute (infra.aws.schedule); locally
`webstore serve` runs the same `run_due` on a daemon thread (`--clock-interval`, 0: off). A
failing run is logged with its traceback and the next one runs as planned: a broken item or a
moment of contention must not stop time for the whole stack. Stopping waits for a run in
progress (bounded), so Ctrl-C never cuts an item between its claim and its act (and if it did,
the claim is resumable: the next run finishes it).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from aws_lambda_powertools import Logger

from webstore.services import Services, get_services
from webstore.subscriptions.dead_letters import park_failing
from webstore.subscriptions.processor import run_due

logger = Logger(child=True)

DEFAULT_CLOCK_INTERVAL = 5.0


class BackgroundClock:
    """Calls `tick` at once, then every `interval` seconds, until `stop()`."""

    def __init__(self, tick: Callable[[], None], interval: float, *, name: str = "clock") -> None:
        if interval <= 0:
            raise ValueError("the clock's interval must be positive")
        self.tick = tick
        self.interval = interval
        self.runs = 0
        self.failures = 0
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> BackgroundClock:
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                self.tick()
            except Exception:
                self.failures += 1
                logger.exception("clock run failed; the next run goes on")
            self.runs += 1
            self._stopping.wait(self.interval)


def processor_tick(
    services: Callable[[], Services] = get_services, say: Callable[[str], None] = print
) -> Callable[[], None]:
    """One run of the subscription processor as of now, then items that keep failing parked;
    each item handled as one line."""

    def tick() -> None:
        current = services()
        report = run_due(current, current.now())
        for outcome in report.outcomes:
            say(f"Clock: {outcome.describe()}")
        for item in park_failing(current, current.now()):
            say(f"Clock: parked {item['kind']} {item['reference']} after {item['attempts']} failed attempts")

    return tick


def start_processor_clock(interval: float) -> BackgroundClock | None:
    """`webstore serve`'s clock (None when `--clock-interval 0` turned it off)."""
    if interval <= 0:
        return None
    return BackgroundClock(processor_tick(say=lambda line: print(line, flush=True)), interval).start()
