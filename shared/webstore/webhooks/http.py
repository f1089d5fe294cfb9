"""The HTTP adapter that POSTs deliveries: stdlib http.client, pinned to checked addresses.

Why not urllib or httpx: we must connect to an address the URL policy checked (not whatever a
second DNS lookup returns) while still sending the real host name in `Host` and TLS SNI, and we
must never follow redirects (a 3xx to an internal address would bypass the policy; a 3xx counts
as a failed delivery). http.client lets us do both in a few lines and adds no dependency.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from webstore.webhooks.policy import Target

USER_AGENT = "Webstore-Webhooks/1.0"
DEFAULT_TIMEOUT_SECONDS = 5.0
MAX_RESPONSE_BYTES = 65_536


@dataclass(frozen=True)
class HttpResult:
    """One POST's outcome: a status (any, including non-2xx) or an error (timeout, refused, TLS…)."""

    status: int | None
    body: bytes
    latency_ms: int
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


class Sender(Protocol):
    def post(self, target: Target, body: bytes, headers: Mapping[str, str]) -> HttpResult: ...


class _PinnedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float, tls: ssl.SSLContext) -> None:
        super().__init__(host, port, timeout=timeout, context=tls)
        self._address = address
        self._tls = tls

    def connect(self) -> None:
        raw = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._tls.wrap_socket(raw, server_hostname=self.host)


class HttpSender:
    """POSTs with a short timeout (each connect and each read), no redirects, a capped response read."""

    def __init__(self, timeout: float = DEFAULT_TIMEOUT_SECONDS, tls: ssl.SSLContext | None = None) -> None:
        self.timeout = timeout
        # The system's trust store with hostname checks; tests pass a context trusting their CA.
        self._tls = tls or ssl.create_default_context()

    def _connection(self, target: Target, address: str) -> http.client.HTTPConnection:
        if target.scheme == "https":
            return _PinnedHTTPSConnection(target.host, target.port, address, self.timeout, self._tls)
        return _PinnedHTTPConnection(target.host, target.port, address, self.timeout)

    def post(self, target: Target, body: bytes, headers: Mapping[str, str]) -> HttpResult:
        started = time.monotonic()
        all_headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "Content-Length": str(len(body)),
            **headers,
        }
        error = "no address to connect to"
        # Try each checked address in turn (IPv6 and IPv4 answers), like a browser would.
        for address in target.addresses:
            connection = self._connection(target, address)
            try:
                try:
                    connection.connect()
                except OSError as exc:
                    error = _describe(exc)
                    continue
                connection.request("POST", target.path, body=body, headers=all_headers)
                response = connection.getresponse()
                content = response.read(MAX_RESPONSE_BYTES)
                return HttpResult(response.status, content, _since(started))
            except (OSError, http.client.HTTPException) as exc:
                return HttpResult(None, b"", _since(started), _describe(exc))
            finally:
                connection.close()
        return HttpResult(None, b"", _since(started), error)


def _since(started: float) -> int:
    return round((time.monotonic() - started) * 1000)


def _describe(error: BaseException) -> str:
    if isinstance(error, TimeoutError):
        return "timeout"
    if isinstance(error, ssl.SSLError):
        return f"tls error: {error.reason or error}"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    return f"{type(error).__name__}: {error}"[:200]
