"""The embedded table's HTTP endpoint: each request is one call of the embedded table's critical
section (it holds the in-process client's lock) and is journaled as one."""

from __future__ import annotations

from typing import Any

from infra.embedded import EmbeddedStore
from infra.embedded_endpoint import locked


def test_a_request_holds_the_lock() -> None:
    store = EmbeddedStore()
    held: list[bool] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        held.append(store.lock._is_owned())
        start_response("200 OK", [])
        return [b"{}"]

    endpoint = locked(app, store)
    for target in ("DynamoDB_20120810.GetItem", "DynamoDB_20120810.TransactWriteItems", ""):
        assert endpoint({"HTTP_X_AMZ_TARGET": target}, lambda *_: None) == [b"{}"]
    assert held == [True, True, True]
    assert not store.lock._is_owned()
