"""Counting a request's DynamoDB round trips through the real handlers (scripts/bench_round_trips.py
prints them for every operation; tests assert them): the calls made on the request's own thread
are a round trip each, and a read issued with `start_read` shares the round trip of the call
the request's thread makes while it is out (docs/data-model.md counts parallel calls once).

    counter = CallCounter()
    counter.count_parallel_reads()            # once per process: wraps webstore.db's reads pool
    counter.hook(get_services().table.client)  # and on each client whose calls count
    counter.reset(); handler(event, context); counter.rounds
"""

from __future__ import annotations

import itertools
import threading
from concurrent.futures import Future
from typing import Any


class CallCounter:
    """Counts DynamoDB API calls, the round trips they make and the items they return.

    A read issued with `start_read` (on the reads pool) shares the round trip of a call the
    request's own thread makes before it collects the read; it is a round trip of its own only
    when no such call was made. Counted by thread rather than by timing, so the figure does not
    depend on scheduling."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.items = 0
        self.own_calls = 0  # on the request's thread
        self.windows: dict[int, bool] = {}  # start_read → a request-thread call was made meanwhile
        self.open: set[int] = set()
        self.window_of_thread: dict[int, int] = {}
        self.lock = threading.Lock()
        self._untracked: Any = None

    @property
    def rounds(self) -> int:
        return self.own_calls + sum(1 for shared in self.windows.values() if not shared)

    def read_started(self, window: int) -> None:
        with self.lock:
            self.windows[window] = False
            self.open.add(window)

    def read_collected(self, window: int) -> None:
        with self.lock:
            self.open.discard(window)

    def before(self, event_name: str, **_: Any) -> None:
        with self.lock:
            self.calls.append(event_name.rsplit(".", 1)[-1])
            if threading.get_ident() not in self.window_of_thread:
                self.own_calls += 1
                for window in self.open:
                    self.windows[window] = True

    def after(self, parsed: dict[str, Any], **_: Any) -> None:
        if "Items" in parsed:
            self.items += len(parsed["Items"])
        elif "Item" in parsed:
            self.items += 1
        for found in (parsed.get("Responses") or {}).values():
            if isinstance(found, list):
                self.items += len(found)

    def hook(self, client: Any) -> None:
        """Count the calls of `client` (a boto3 DynamoDB client)."""
        client.meta.events.register("before-call.dynamodb", self.before)
        client.meta.events.register("after-call.dynamodb", self.after)

    def unhook(self, client: Any) -> None:
        client.meta.events.unregister("before-call.dynamodb", self.before)
        client.meta.events.unregister("after-call.dynamodb", self.after)

    def reset(self) -> None:
        self.calls, self.items, self.own_calls = [], 0, 0
        self.windows, self.open = {}, set()

    def count_parallel_reads(self) -> None:
        """Wrap `start_read` (webstore.db's pool) so each read's window is known."""
        from webstore import db

        submit = db._reads.submit
        windows = itertools.count(1)

        def tracked_submit(read: Any, *args: Any) -> Future[Any]:
            window = next(windows)
            self.read_started(window)

            def run() -> Any:
                self.window_of_thread[threading.get_ident()] = window
                try:
                    return read(*args)
                finally:
                    self.window_of_thread.pop(threading.get_ident(), None)

            future = submit(run)
            result = future.result

            def collect(timeout: float | None = None) -> Any:
                try:
                    return result(timeout)
                finally:
                    self.read_collected(window)

            future.result = collect  # type: ignore[method-assign]
            return future

        db._reads.submit = tracked_submit  # type: ignore[method-assign,assignment]
        self._untracked = submit

    def stop_counting_parallel_reads(self) -> None:
        """Undo `count_parallel_reads` (a test's counter leaves the pool as it found it)."""
        from webstore import db

        db._reads.submit = self._untracked  # type: ignore[method-assign]
