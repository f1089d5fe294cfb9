"""The storefront's credentials: the public token in the path (`verified`), and the Basic auth
`public token (webstore identifier) : checkout API key`.

Used by the server-to-server storefront operations (dynamic packages, a player's tiers, tier
change). The key is stored only as its hash; both parts are compared in constant time, and both
are always compared, so the answer takes as long whichever part is wrong.

Wrong credentials are counted per caller address by the brute-force guard, as wrong server
secrets are (webstore.failure_guard.CHECKOUT_KEY, its own counters): past the allowed failures
in the window the address gets 429 with Retry-After, even with the right key. The use case reads
the caller's mark in its first read (`BasketReads.failure_mark`, or `start_mark_read` beside it).
"""

from __future__ import annotations

import hmac
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING

from webstore import keys
from webstore.errors import Invalid, NotFound, Unauthorized
from webstore.failure_guard import CHECKOUT_KEY
from webstore.repo import start_read
from webstore.repo.throttle import FailureMark
from webstore.services import Services

if TYPE_CHECKING:  # the catalog's models are loaded by the routes that use them, not by this check
    from webstore.catalog import Store


@dataclass(frozen=True)
class Credentials:
    """Basic auth as sent, and the address it came from (whose wrong keys the guard counts)."""

    username: str
    password: str
    client: str

    @property
    def failure_mark(self) -> tuple[str, str]:
        """What a batch read names to fetch the caller's mark (`BasketReads.failure_mark`)."""
        return (CHECKOUT_KEY.scope, self.client)


CREDENTIALS_REQUIRED = "Basic auth credentials are required (webstore identifier and checkout API key)"


def verified(store: Store, public_token: str) -> Store:
    """The token names the account; this proves it is the store's current token."""
    if not hmac.compare_digest(store.public_token, public_token):
        raise NotFound("Store not found")
    return store


def require_present(credentials: Credentials | None, *, missing_is_invalid: bool = False) -> Credentials:
    """The credentials, or the error for none: 401, or SPEC's 422 for createDynamicPackage."""
    if credentials is None:
        if missing_is_invalid:
            raise Invalid(CREDENTIALS_REQUIRED, field="authorization")
        raise Unauthorized(CREDENTIALS_REQUIRED)
    return credentials


def check_not_blocked(services: Services, credentials: Credentials) -> None:
    """429 at once when this instance already knows the address is blocked (before any read)."""
    CHECKOUT_KEY.check_remembered(services, credentials.client, _now(services))


def start_mark_read(services: Services, credentials: Credentials) -> Future[FailureMark | None]:
    """The caller's mark, read beside the use case's first read (a route with no batch read)."""
    check_not_blocked(services, credentials)
    return start_read(CHECKOUT_KEY.repository(services).mark, credentials.client)


def check_checkout_credentials(
    services: Services, store: Store, credentials: Credentials, mark: FailureMark | None
) -> None:
    """Right identifier and key, from an address not blocked for guessing (`mark`: its mark,
    as read with the store). A wrong one is counted: 401, or 429 past the allowed failures."""
    now = _now(services)
    CHECKOUT_KEY.check_mark(services, credentials.client, mark, now)
    identifier_ok = hmac.compare_digest(credentials.username.encode(), store.public_token.encode())
    key_ok = bool(store.checkout_key_hash) and keys.secret_matches(
        credentials.password, store.checkout_key_hash
    )
    if not (identifier_ok and key_ok):
        CHECKOUT_KEY.count_failure(services, credentials.client, now)
        raise Unauthorized("The webstore identifier or checkout API key is wrong")


def _now(services: Services) -> int:
    return int(services.now().timestamp())
