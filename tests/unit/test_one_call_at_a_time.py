"""The embedded (moto) table's guard: one DynamoDB call at a time, as DynamoDB makes each atomic."""

from __future__ import annotations

import threading
import time
from typing import Any

from infra.embedded import one_call_at_a_time
from tests.support.threads import in_threads


class SlowClient:
    """Records how many calls were inside it at once."""

    def __init__(self) -> None:
        self.inside = 0
        self.most_inside = 0
        self.calls: list[str] = []
        self._count_lock = threading.Lock()

    def _make_api_call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        with self._count_lock:
            self.inside += 1
            self.most_inside = max(self.most_inside, self.inside)
        time.sleep(0.005)
        with self._count_lock:
            self.inside -= 1
            self.calls.append(operation)
        return {"operation": operation, "params": params}


def test_calls_from_many_threads_run_one_at_a_time_and_all_complete() -> None:
    client = SlowClient()
    atomic = one_call_at_a_time(client)
    results: list[dict[str, Any]] = []
    in_threads(lambda n: results.append(atomic("TransactWriteItems", {"n": n})), [(n,) for n in range(8)])
    assert client.most_inside == 1
    assert len(client.calls) == 8
    assert sorted(r["params"]["n"] for r in results) == list(range(8))


def test_without_the_guard_the_same_calls_overlap() -> None:
    """The control: the fake does let calls overlap, so the test above can fail."""
    client = SlowClient()
    in_threads(lambda n: client._make_api_call("TransactWriteItems", {"n": n}), [(n,) for n in range(8)])
    assert client.most_inside > 1
