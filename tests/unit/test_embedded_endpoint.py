"""The embedded table's HTTP endpoint: each request holds the in-process client's lock, and a
write is reported (the local stack's state snapshots need to know)."""

from __future__ import annotations

import threading
from typing import Any

from infra.embedded_endpoint import locked


def test_a_request_holds_the_lock_and_writes_are_reported() -> None:
    lock = threading.RLock()
    held: list[bool] = []
    writes: list[str] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        held.append(lock._is_owned())  # type: ignore[attr-defined]
        start_response("200 OK", [])
        return [b"{}"]

    endpoint = locked(app, lock, on_write=lambda: writes.append("write"))
    for target in ("DynamoDB_20120810.GetItem", "DynamoDB_20120810.TransactWriteItems", ""):
        assert endpoint({"HTTP_X_AMZ_TARGET": target}, lambda *_: None) == [b"{}"]
    assert held == [True, True, True]
    assert writes == ["write"]
    assert not lock._is_owned()  # type: ignore[attr-defined]
