"""Server secrets: who is calling the operator interface, and the brute-force guard.

A secret is looked up by its SHA-256 (one BatchGetItem that also reads the caller address's
failure mark). Verified secrets are cached in process for `secret_cache_seconds`: a revoked or
rotated secret keeps working on a warm instance for at most that long (docs/operator.md).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from webstore import keys
from webstore.db import ConditionFailed
from webstore.errors import Forbidden, Throttled
from webstore.services import Services

SECRET_HEADERS = ("x-service-secret", "x-tebex-secret")
MAX_SECRET_LENGTH = 256
# The guard's failure counters: the only items a read-only operator function may write
# (Access.SECRET_GUARD; IAM grants it by this partition-key prefix).
GUARD_SCOPE = "secret"
GUARD_KEY_PREFIX = keys.throttle_prefix(GUARD_SCOPE)


@dataclass(frozen=True)
class ServerIdentity:
    """What a valid secret proves: the account and the one server it belongs to."""

    account_id: int
    server_id: int


class _SecretCache:
    """Verified secret hashes and blocked addresses, per process (one Lambda instance)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._secrets: dict[tuple[str, str], tuple[ServerIdentity, float]] = {}
        self._blocked: dict[tuple[str, str], float] = {}

    def identity(self, table: str, secret_hash: str) -> ServerIdentity | None:
        with self._lock:
            found = self._secrets.get((table, secret_hash))
            if found is None or found[1] <= time.monotonic():
                self._secrets.pop((table, secret_hash), None)
                return None
            return found[0]

    def remember(self, table: str, secret_hash: str, identity: ServerIdentity, seconds: int) -> None:
        if seconds <= 0:
            return
        with self._lock:
            if len(self._secrets) > 10_000:
                self._secrets.clear()
            self._secrets[(table, secret_hash)] = (identity, time.monotonic() + seconds)

    def blocked_for(self, table: str, client: str, now: float) -> int:
        """Seconds the address stays blocked (0: not blocked); `now` is the services clock."""
        with self._lock:
            until = self._blocked.get((table, client))
            if until is None:
                return 0
            left = until - now
            if left <= 0:
                del self._blocked[(table, client)]
                return 0
            return max(1, int(left))

    def block(self, table: str, client: str, until: float) -> None:
        with self._lock:
            self._blocked[(table, client)] = until

    def clear(self) -> None:
        with self._lock:
            self._secrets.clear()
            self._blocked.clear()


cache = _SecretCache()


def authenticate(services: Services, secret: str | None, client: str) -> ServerIdentity:
    """The server a secret belongs to. Forbidden when missing or wrong; Throttled while the
    client address is blocked for guessing (even with a right secret)."""
    if not secret:
        raise Forbidden("A server secret is required in the X-Service-Secret or X-Tebex-Secret header")
    if len(secret) > MAX_SECRET_LENGTH:
        secret = secret[:MAX_SECRET_LENGTH]  # hashed and refused like any other wrong secret
    settings = services.settings
    table = services.table.name
    now = int(services.now().timestamp())
    blocked = cache.blocked_for(table, client, now)
    if blocked:
        raise Throttled("Too many invalid secrets from this address; try again later", retry_after=blocked)
    secret_hash = keys.hash_secret(secret)
    known = cache.identity(table, secret_hash)
    if known is not None:
        return known

    secret_key = keys.secret_key(secret_hash)
    throttle_key = keys.throttle_key(GUARD_SCOPE, client)
    found = {(i["PK"], i["SK"]): i for i in services.table.batch_get([secret_key, throttle_key])}
    mark = found.get((throttle_key["PK"], throttle_key["SK"]))
    if mark is not None and _is_blocked(mark, now, settings.secret_failures_allowed):
        left = int(mark["expires_at"]) - now
        cache.block(table, client, int(mark["expires_at"]))
        raise Throttled("Too many invalid secrets from this address; try again later", retry_after=left)
    item = found.get((secret_key["PK"], secret_key["SK"]))
    if item is None:
        failures, expires_at = _record_failure(services, throttle_key, now)
        if failures > settings.secret_failures_allowed:
            cache.block(table, client, expires_at)
            raise Throttled(
                "Too many invalid secrets from this address; try again later", retry_after=expires_at - now
            )
        raise Forbidden("Invalid server secret")
    identity = ServerIdentity(int(item["account_id"]), int(item["server_id"]))
    cache.remember(table, secret_hash, identity, settings.secret_cache_seconds)
    return identity


def _is_blocked(mark: dict[str, Any], now: int, allowed: int) -> bool:
    return int(mark.get("expires_at", 0)) > now and int(mark.get("failures", 0)) > allowed


def _record_failure(services: Services, key: dict[str, str], now: int) -> tuple[int, int]:
    """Count one wrong secret in the address's window (ADD; a lapsed window starts over)."""
    window = services.settings.secret_failure_window_seconds
    try:
        result = services.table.update(
            key,
            "ADD failures :one SET expires_at = if_not_exists(expires_at, :until), entity = :entity",
            condition="attribute_not_exists(expires_at) OR expires_at > :now",
            values={":one": 1, ":until": now + window, ":now": now, ":entity": "throttle"},
            return_values="ALL_NEW",
        )
        return int(result["failures"]), int(result["expires_at"])
    except ConditionFailed:
        pass
    # The old window lapsed (TTL deletion lags): start a new one.
    services.table.put({**key, "entity": "throttle", "failures": 1, "expires_at": now + window})
    return 1, now + window
