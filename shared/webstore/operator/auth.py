"""Server secrets: who is calling the operator interface, and the brute-force guard.

A secret is looked up by its SHA-256 (one BatchGetItem that also reads the caller address's
failure mark). Verified secrets are cached in process for `secret_cache_seconds`: a revoked or
rotated secret keeps working on a warm instance for at most that long (docs/operator.md).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from webstore import keys
from webstore.errors import Forbidden, Throttled
from webstore.repo.throttle import ThrottleRepository
from webstore.services import Services

# SPEC's header, what current plugins send, and what the legacy BuycraftX plugin sends.
SECRET_HEADERS = ("x-service-secret", "x-tebex-secret", "x-buycraft-secret")
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
        raise Forbidden(
            "A server secret is required in the X-Service-Secret, X-Tebex-Secret or X-Buycraft-Secret header"
        )
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

    owner, mark = ThrottleRepository(services.table, GUARD_SCOPE).secret_and_mark(secret_hash, client)
    if mark is not None and mark.blocks(now, settings.secret_failures_allowed):
        cache.block(table, client, mark.expires_at)
        raise Throttled(
            "Too many invalid secrets from this address; try again later", retry_after=mark.expires_at - now
        )
    if owner is None:
        failures, expires_at = _record_failure(services, client, now)
        if failures > settings.secret_failures_allowed:
            cache.block(table, client, expires_at)
            raise Throttled(
                "Too many invalid secrets from this address; try again later", retry_after=expires_at - now
            )
        raise Forbidden("Invalid server secret")
    identity = ServerIdentity(owner.account_id, owner.server_id)
    cache.remember(table, secret_hash, identity, settings.secret_cache_seconds)
    return identity


def _record_failure(services: Services, client: str, now: int) -> tuple[int, int]:
    """Count one wrong secret in the address's window (a lapsed window starts over)."""
    window = services.settings.secret_failure_window_seconds
    mark = ThrottleRepository(services.table, GUARD_SCOPE).record_failure(client, now, window)
    return mark.failures, mark.expires_at
