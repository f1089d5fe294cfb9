"""The embedded table, reachable from other processes: moto's server on a loopback port.

`webstore serve` keeps its DynamoDB in process (moto's `mock_aws`). The tools (`webstore import
--local`, `webstore clock run --local`) run in their own processes, so `serve` also answers
DynamoDB's HTTP protocol on 127.0.0.1 with moto's own server app. moto keeps its backends in
module globals: the server app and the in-process mock read and write the same tables (checked
by tests/e2e/test_local_tools.py, which writes through one and reads through the other).

moto runs each HTTP request's DynamoDB call in the embedded table's critical section
(infra.embedded.as_a_store), as it runs the in-process client's: a tool's write never interleaves
with a request's, and it is journaled (on disk) before the tool gets its answer.
The endpoint checks no signature: any access key works (the credentials file carries dummy
ones), and it listens on loopback only.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

LOOPBACK = "127.0.0.1"


class _QuietHandler(WSGIRequestHandler):
    """No access-log line per DynamoDB call on serve's console."""

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        return


@contextmanager
def dynamodb_endpoint(port: int = 0) -> Iterator[str]:
    """Serve the in-process moto backends on 127.0.0.1:`port` (0: any free port) while the block
    runs; yields the endpoint URL. Enter it inside `embedded_dynamodb()`."""
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

    app = DomainDispatcherApplication(create_backend_app)
    server: BaseWSGIServer = make_server(LOOPBACK, port, app, threaded=True, request_handler=_QuietHandler)
    thread = threading.Thread(target=server.serve_forever, name="dynamodb-endpoint", daemon=True)
    thread.start()
    try:
        yield f"http://{LOOPBACK}:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
