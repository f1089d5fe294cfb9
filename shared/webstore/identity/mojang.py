"""Online-mode Minecraft identities through Mojang's public profile lookup.

`GET {base}/users/profiles/minecraft/{name}` (no authentication): 200 `{"id": 32 hex, "name":
the name's real casing}`; 204 or 404 when no account has that name (the API answered 204 for
years and 404 with an error body since; both mean unknown); 400 for a name it considers
invalid (unknown too: no account can have it). 429 (600 requests per 10 minutes per address),
5xx, a timeout, a connection error or a 200 whose body is not such a profile mean the service
cannot tell now: `NameServiceUnavailable`, never "unknown".
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any
from urllib.parse import quote

from webstore.identity.port import ACCOUNT_UUID, Account, NameServiceUnavailable
from webstore.usernames import USERNAME

UNKNOWN_STATUSES = frozenset({204, 400, 404})
MAX_BODY_BYTES = 16_384  # a profile is ~80 bytes


class MojangProfiles:
    """The adapter for online-mode stores: one short GET per lookup (the registry caches).

    The standard library's HTTP client (imported on the first lookup: most requests make
    none), so the Lambda layer carries no extra dependency; redirects are not followed (a
    3xx is not an answer about the name)."""

    def __init__(self, base_url: str, timeout_seconds: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout_seconds = timeout_seconds

    def resolve(self, username: str) -> Account | None:
        status, body = self._get(f"{self.base_url}/users/profiles/minecraft/{quote(username, safe='')}")
        if status in UNKNOWN_STATUSES:
            return None
        if status != 200:  # 429, 5xx, 3xx, anything unexpected: cannot tell
            raise NameServiceUnavailable()
        account = _account(body)
        if account.username.lower() != username.lower():  # not the profile asked for
            raise NameServiceUnavailable()
        return account

    def account(self, uuid: str) -> Account | None:
        """By UUID: `GET {base}/user/profile/{uuid}`, answered like the name lookup (200 the
        profile; 204/400/404 no such account; anything else cannot tell)."""
        if not ACCOUNT_UUID.match(uuid):
            return None
        status, body = self._get(f"{self.base_url}/user/profile/{uuid}")
        if status in UNKNOWN_STATUSES:
            return None
        if status != 200:
            raise NameServiceUnavailable()
        account = _account(body)
        if account.uuid != uuid:  # not the profile asked for
            raise NameServiceUnavailable()
        return account

    def _get(self, url: str) -> tuple[int, bytes]:
        import http.client
        import urllib.error
        import urllib.request

        opener = urllib.request.build_opener(_no_redirects())
        headers = {"Accept": "application/json", "User-Agent": "webstore"}
        request = urllib.request.Request(url, headers=headers)
        try:
            with opener.open(request, timeout=self.timeout_seconds) as response:
                return int(response.status), response.read(MAX_BODY_BYTES)
        except urllib.error.HTTPError as error:  # any status but 2xx
            with error:
                return int(error.code), b""
        except (OSError, ValueError, http.client.HTTPException) as error:  # timeouts, refused, garbled
            raise NameServiceUnavailable() from error


def _no_redirects() -> type:
    import urllib.request

    class NoRedirects(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None  # the 3xx surfaces as an HTTPError

    return NoRedirects


def _account(raw: bytes) -> Account:
    try:
        body: Any = json.loads(raw)
    except ValueError as error:
        raise NameServiceUnavailable() from error
    uuid_value = str(body.get("id", "")).replace("-", "").lower() if isinstance(body, dict) else ""
    name = body.get("name") if isinstance(body, dict) else None
    if not ACCOUNT_UUID.match(uuid_value) or not isinstance(name, str) or not USERNAME.match(name):
        raise NameServiceUnavailable()
    return Account(uuid=uuid_value, username=name)


@lru_cache(maxsize=4)
def mojang_profiles(base_url: str, timeout_seconds: float) -> MojangProfiles:
    """One adapter (and its connection pool) per base URL for the life of the process."""
    return MojangProfiles(base_url, timeout_seconds)
