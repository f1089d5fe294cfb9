"""The local stack, started once per session as a user would start it (`webstore serve`)."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.support.chromium import CHROMIUM_ARGS, CHROMIUM_PATH
from tests.support.local_stack import ROOT, free_port, serving

__all__ = ["ROOT", "free_port"]  # the e2e modules import these from here


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"webstore serve exited with {process.returncode}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise TimeoutError(f"nothing listens on {port}")


def served(server: ThreadingHTTPServer, value: Any) -> Iterator[Any]:
    """Serve `server` in a thread while the fixture yields `value`."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield value
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class WebhookReceiver:
    """A shop's webhook receiver on 127.0.0.1, written as receivers of the real platform are:
    it answers the validation handshake and records every delivery with its signature."""

    port: int
    secret: str = "e2e-webhook-signing-secret"
    deliveries: list[tuple[bytes, str]] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/webhooks"

    def verified_events(self) -> list[dict[str, Any]]:
        """Deliveries whose X-Signature verifies (HMAC-SHA256 of the body's SHA-256 hex digest)."""
        events = []
        for body, signature in list(self.deliveries):
            digest = hashlib.sha256(body).hexdigest()
            expected = hmac.new(self.secret.encode(), digest.encode(), hashlib.sha256).hexdigest()
            if hmac.compare_digest(expected, signature):
                events.append(json.loads(body))
        return events

    def wait_for(
        self, event_type: str, match: Callable[[dict[str, Any]], bool] = lambda _: True, timeout: float = 20
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in self.verified_events():
                if event["type"] == event_type and match(event):
                    return event
            time.sleep(0.2)
        raise AssertionError(f"no verified {event_type} arrived; got {len(self.deliveries)} deliveries")


@pytest.fixture(scope="session")
def webhook_receiver() -> Iterator[WebhookReceiver]:
    yield from receiving(WebhookReceiver(free_port()))


def receiving(receiver: WebhookReceiver) -> Iterator[WebhookReceiver]:
    """Serve `receiver` on its port while the caller's fixture yields it."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            receiver.deliveries.append((body, self.headers.get("X-Signature", "")))
            envelope = json.loads(body or b"{}")
            answer = json.dumps({"id": envelope.get("id")}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: Any) -> None:
            pass

    yield from served(ThreadingHTTPServer(("127.0.0.1", receiver.port), Handler), receiver)


@dataclass
class ReturnSite:
    """The shop's pages a player is sent back to: a tiny HTTP server on 127.0.0.1."""

    port: int
    visits: list[str] = field(default_factory=list)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture
def return_site() -> Iterator[ReturnSite]:
    site = ReturnSite(free_port())

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path != "/favicon.ico":
                site.visits.append(self.path)
            body = b"<!doctype html><title>Back at the shop</title><h1>Back at the shop</h1>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    yield from served(ThreadingHTTPServer(("127.0.0.1", site.port), Handler), site)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless, driven by Playwright (which cannot download its own here).
    Module-scoped: Playwright's sync API keeps an event loop running in this thread while it
    lives, and the Lambda handlers of later test modules need that thread's loop free."""
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM_PATH, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def local_stack(
    tmp_path_factory: pytest.TempPathFactory, webhook_receiver: WebhookReceiver
) -> Iterator[dict[str, Any]]:
    """Credentials of a running local stack: headless_url, plugin_url, keys (COMPAT names)."""
    yield from started_stack(tmp_path_factory, webhook_receiver)


def started_stack(
    tmp_path_factory: pytest.TempPathFactory, webhook_receiver: WebhookReceiver, *extra: str
) -> Iterator[dict[str, Any]]:
    """A local stack of its own (`webstore serve` on free ports), for as long as the caller's
    fixture yields: a test that edits the demo store keeps its edits from the shared one."""
    creds_file = tmp_path_factory.mktemp("stack") / "credentials.json"
    storefront, operator = free_port(), free_port()
    webhook = f"{webhook_receiver.url}#{webhook_receiver.secret}"
    options = ("--next-check", "2", "--webhook", webhook, *extra)  # `extra`: more serve options
    with serving(
        storefront, operator, creds_file, *options, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    ) as process:
        wait_for_port(storefront, process)
        wait_for_port(operator, process)
        creds = json.loads(creds_file.read_text())
        wait_for_port(int(creds["admin_url"].rsplit(":", 1)[1]), process)
        wait_for_port(int(creds["shop_url"].rsplit(":", 1)[1]), process)
        creds["process"] = process
        yield creds
