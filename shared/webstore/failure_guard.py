"""The brute-force guard: wrong credentials counted per caller address, and a block past the
allowed number within a window (429 with Retry-After, even for the right credentials).

One guard per kind of credential, each with its own scope of `THROTTLE#{scope}#` counters: the
operator interface's server secret (`SERVER_SECRET`) and the storefront's Basic auth checkout
key (`CHECKOUT_KEY`), the control panel's staff passwords (`STAFF_LOGIN`), and the shop's
gift-card balance look-ups (`GIFTCARD_BALANCE`). All share the
settings `secret_failures_allowed` and
`secret_failure_window_seconds`. The caller reads the address's mark in the read it makes anyway
(`ThrottleRepository`); a block seen by an instance is remembered in process until it ends.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from webstore import keys
from webstore.errors import Throttled
from webstore.repo.throttle import FailureMark, ThrottleRepository
from webstore.services import Services


class _BlockedAddresses:
    """Addresses blocked until a time (the services clock), per table and scope, per process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._until: dict[tuple[str, str, str], float] = {}

    def seconds_left(self, where: tuple[str, str, str], now: float) -> int:
        with self._lock:
            until = self._until.get(where)
            if until is None:
                return 0
            left = until - now
            if left <= 0:
                del self._until[where]
                return 0
            return max(1, int(left))

    def block(self, where: tuple[str, str, str], until: float) -> None:
        with self._lock:
            if len(self._until) > 10_000:
                self._until.clear()
            self._until[where] = until

    def clear(self) -> None:
        with self._lock:
            self._until.clear()


blocked = _BlockedAddresses()


@dataclass(frozen=True)
class FailureGuard:
    """Counts one kind of wrong credential per caller address (its own scope of counters)."""

    scope: str
    what: str  # in the 429's message: "invalid secrets", "wrong checkout keys"

    @property
    def key_prefix(self) -> str:
        return keys.throttle_prefix(self.scope)

    def repository(self, services: Services) -> ThrottleRepository:
        return ThrottleRepository(services.table, self.scope)

    def check_remembered(self, services: Services, client: str, now: int) -> None:
        """Throttled while this instance knows the address is blocked (no round trip)."""
        left = blocked.seconds_left((services.table.name, self.scope, client), now)
        if left:
            raise self._throttled(left)

    def check_mark(self, services: Services, client: str, mark: FailureMark | None, now: int) -> None:
        """Throttled when the address's mark (read by the caller) blocks it."""
        if mark is not None and mark.blocks(now, services.settings.secret_failures_allowed):
            self._block(services, client, mark.expires_at, now)

    def count_failure(self, services: Services, client: str, now: int) -> None:
        """Count one wrong credential; Throttled when it is one past the allowed (else the caller
        raises its own 401/403)."""
        window = services.settings.secret_failure_window_seconds
        mark = self.repository(services).record_failure(client, now, window)
        if mark.failures > services.settings.secret_failures_allowed:
            self._block(services, client, mark.expires_at, now)

    def _block(self, services: Services, client: str, until: int, now: int) -> None:
        blocked.block((services.table.name, self.scope, client), until)
        raise self._throttled(until - now)

    def _throttled(self, retry_after: int) -> Throttled:
        return Throttled(f"Too many {self.what} from this address; try again later", retry_after=retry_after)


SERVER_SECRET = FailureGuard("secret", "invalid secrets")
CHECKOUT_KEY = FailureGuard("checkout-key", "wrong checkout keys")
STAFF_LOGIN = FailureGuard("staff-login", "failed sign-ins")
# The shop's gift-card balance form counts every look-up, found or not (webstore.shop.giftcard).
GIFTCARD_BALANCE = FailureGuard("giftcard-balance", "gift card look-ups")
# What Access.SECRET_GUARD may write (IAM grants it by these partition-key prefixes only).
GUARD_KEY_PREFIXES = (
    SERVER_SECRET.key_prefix,
    CHECKOUT_KEY.key_prefix,
    STAFF_LOGIN.key_prefix,
    GIFTCARD_BALANCE.key_prefix,
)
