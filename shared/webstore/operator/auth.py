"""Server secrets: who is calling the operator interface, and the brute-force guard.

A secret is looked up by its SHA-256 (one BatchGetItem that also reads the caller address's
failure mark; the guard is webstore.failure_guard's SERVER_SECRET). Verified secrets are cached
in process for `secret_cache_seconds`: a revoked or rotated secret keeps working on a warm
instance for at most that long (docs/operator.md).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from webstore import keys
from webstore.errors import Forbidden
from webstore.failure_guard import SERVER_SECRET, blocked
from webstore.services import Services

# SPEC's header, what current plugins send, and what the legacy BuycraftX plugin sends.
SECRET_HEADERS = ("x-service-secret", "x-tebex-secret", "x-buycraft-secret")
MAX_SECRET_LENGTH = 256
# The guard's failure counters: the only items a read-only operator function may write
# (Access.SECRET_GUARD; IAM grants it by this partition-key prefix).
GUARD_SCOPE = SERVER_SECRET.scope
GUARD_KEY_PREFIX = SERVER_SECRET.key_prefix


@dataclass(frozen=True)
class ServerIdentity:
    """What a valid secret proves: the account and the one server it belongs to."""

    account_id: int
    server_id: int


class _SecretCache:
    """Verified secret hashes, per process (one Lambda instance)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._secrets: dict[tuple[str, str], tuple[ServerIdentity, float]] = {}

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

    def forget(self, table: str, secret_hash: str) -> None:
        """Drop one secret at once (the panel rotated it in this process); other instances keep
        it for at most their cache time."""
        with self._lock:
            self._secrets.pop((table, secret_hash), None)

    def clear(self) -> None:
        """Also forgets the blocked addresses of every guard (tests and benches start clean)."""
        with self._lock:
            self._secrets.clear()
        blocked.clear()


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
    table = services.table.name
    now = int(services.now().timestamp())
    SERVER_SECRET.check_remembered(services, client, now)
    secret_hash = keys.hash_secret(secret)
    known = cache.identity(table, secret_hash)
    if known is not None:
        return known

    owner, mark = SERVER_SECRET.repository(services).secret_and_mark(secret_hash, client)
    SERVER_SECRET.check_mark(services, client, mark, now)
    if owner is None:
        SERVER_SECRET.count_failure(services, client, now)
        raise Forbidden("Invalid server secret")
    identity = ServerIdentity(owner.account_id, owner.server_id)
    cache.remember(table, secret_hash, identity, services.settings.secret_cache_seconds)
    return identity
