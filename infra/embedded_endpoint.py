"""The embedded table, reachable from other processes: moto's server on a loopback port.

`webstore serve` keeps its DynamoDB in process (moto's `mock_aws`). The tools (`webstore import
--local`, `webstore clock run --local`) run in their own processes, so `serve` also answers
DynamoDB's HTTP protocol on 127.0.0.1 with moto's own server app. moto keeps its backends in
module globals: the server app and the in-process mock read and write the same tables (checked
by tests/e2e/test_local_tools.py, which writes through one and reads through the other).

moto is not thread-safe inside a call (infra.embedded.one_call_at_a_time): each HTTP request
holds the same lock as the in-process client's calls, so a tool's write never interleaves with a
request's. The endpoint checks no signature: any access key works (the credentials file carries
dummy ones), and it listens on loopback only.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

LOOPBACK = "127.0.0.1"


class _QuietHandler(WSGIRequestHandler):
    """No access-log line per DynamoDB call on serve's console."""

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        return


WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"})


def locked(app: Any, lock: AbstractContextManager[Any], on_write: Callable[[], None] | None = None) -> Any:
    """A WSGI app that runs `app` (and reads its whole answer) while holding `lock`; after a
    DynamoDB write (by its `X-Amz-Target`), calls `on_write` (e.g. to schedule a state snapshot)."""

    def call(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        with lock:
            answer = list(app(environ, start_response))
        operation = str(environ.get("HTTP_X_AMZ_TARGET", "")).rpartition(".")[2]
        if on_write is not None and operation in WRITES:
            on_write()
        return answer

    return call


@contextmanager
def dynamodb_endpoint(
    lock: AbstractContextManager[Any], port: int = 0, *, on_write: Callable[[], None] | None = None
) -> Iterator[str]:
    """Serve the in-process moto backends on 127.0.0.1:`port` (0: any free port) while the block
    runs; yields the endpoint URL. Enter it inside `embedded_dynamodb()`. `lock` is the one the
    in-process client's calls hold (a Lock or an RLock)."""
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

    app = locked(DomainDispatcherApplication(create_backend_app), lock, on_write)
    server: BaseWSGIServer = make_server(LOOPBACK, port, app, threaded=True, request_handler=_QuietHandler)
    thread = threading.Thread(target=server.serve_forever, name="dynamodb-endpoint", daemon=True)
    thread.start()
    try:
        yield f"http://{LOOPBACK}:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
