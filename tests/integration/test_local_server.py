"""The local server (`webstore serve`) as uvicorn runs it, on loopback: a slow request does not
stall the others (issue 10.12), the client address is the socket's unless a trusted proxy is
named (issue 10.14), the credentials file is private (issue 10.15)."""

from __future__ import annotations

import json
import os
import socket
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from infra.local import LocalConfig, bind, server_config, write_private
from infra.threaded import ThreadedApp
from tests.support.local_stack import free_port


@contextmanager
def serving(app: Any, config: LocalConfig) -> Iterator[str]:
    port = free_port()
    server = uvicorn.Server(server_config(app, config, port))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(5)


@dataclass
class Probe:
    """`/slow` blocks (as a boto3 call does) until `/fast` has been answered or `patience` runs
    out, and says which: whether a fast request was served while a slow one was in flight."""

    patience: float
    slow_entered: threading.Event = field(default_factory=threading.Event)
    fast_served: threading.Event = field(default_factory=threading.Event)
    served_during_slow: bool | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Like our endpoints: async, but blocking in a synchronous call for /slow."""
        if scope["type"] != "http":
            return
        if scope["path"] == "/slow":
            self.slow_entered.set()
            self.served_during_slow = self.fast_served.wait(self.patience)  # blocks the thread
        body = json.dumps({"client": scope["client"][0], "path": scope["path"]}).encode()
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        if scope["path"] == "/fast":
            self.fast_served.set()


async def blocking_app(scope: Any, receive: Any, send: Any) -> None:
    await Probe(patience=0)(scope, receive, send)


def fast_while_slow(base: str, probe: Probe) -> bool:
    """Whether `/fast`, sent once `/slow` is blocking, was served before `/slow` went on. No
    clock: `patience` only bounds how long `/slow` waits for a fast request that cannot come."""
    slow = threading.Thread(target=lambda: httpx.get(f"{base}/slow", timeout=120))
    slow.start()
    assert probe.slow_entered.wait(60)
    assert httpx.get(f"{base}/fast", timeout=120).status_code == 200
    slow.join()
    assert probe.served_during_slow is not None
    return probe.served_during_slow


def test_a_slow_request_does_not_stall_the_others() -> None:
    threaded = Probe(patience=60)  # answered as soon as /fast is: the wait is never the bound
    with serving(ThreadedApp(threaded), LocalConfig()) as base:
        assert fast_while_slow(base, threaded)
    bare = Probe(patience=0.5)  # the bare app, as before: /fast waits until /slow is done
    with serving(bare, LocalConfig()) as base:
        assert not fast_while_slow(base, bare)


def test_x_forwarded_for_is_ignored_unless_from_a_named_trusted_proxy() -> None:
    spoofed = {"X-Forwarded-For": "198.51.100.7"}
    with serving(blocking_app, LocalConfig()) as base:
        assert httpx.get(f"{base}/who", headers=spoofed).json()["client"] == "127.0.0.1"
    with serving(blocking_app, LocalConfig(trusted_proxy="127.0.0.1")) as base:
        assert httpx.get(f"{base}/who", headers=spoofed).json()["client"] == "198.51.100.7"


def test_the_credentials_file_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "creds.json"
    path.write_text("{}")
    os.chmod(path, 0o644)
    write_private(path, '{"server_secret": "s"}')
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {"server_secret": "s"}
    fresh = tmp_path / "fresh.json"
    write_private(fresh, "{}")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600


def test_the_connections_it_accepts_send_small_responses_at_once() -> None:
    """No Nagle: a small response's body (a second write after the head) is not held back
    until the client's delayed ACK (~40 ms a request on loopback)."""
    listener = bind("127.0.0.1", free_port(), "--port")
    try:
        listener.listen(1)
        with socket.create_connection(listener.getsockname()[:2]):
            accepted, _ = listener.accept()
            with accepted:
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        listener.close()
