"""The storefront's credentials: the public token in the path (`verified`), and the Basic auth
`public token (webstore identifier) : checkout API key`.

Used by the server-to-server storefront operations (dynamic packages, a player's tiers, tier
change). The key is stored only as its hash; both parts are compared in constant time, and both
are always compared, so the answer takes as long whichever part is wrong.
"""

from __future__ import annotations

import hmac

from webstore import keys
from webstore.catalog import Store
from webstore.errors import Invalid, NotFound, Unauthorized

Credentials = tuple[str, str]

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


def check_checkout_credentials(store: Store, credentials: Credentials) -> None:
    username, password = credentials
    identifier_ok = hmac.compare_digest(username.encode(), store.public_token.encode())
    key_ok = bool(store.checkout_key_hash) and keys.secret_matches(password, store.checkout_key_hash)
    if not (identifier_ok and key_ok):
        raise Unauthorized("The webstore identifier or checkout API key is wrong")
