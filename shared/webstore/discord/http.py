"""The Discord adapter: httpx against Discord's HTTP API (v10), its rate limits honoured.

Rate limits (https://discord.com/developers/docs/topics/rate-limits): every answer names its
bucket (`X-RateLimit-Bucket`) and what is left of it (`X-RateLimit-Remaining`,
`X-RateLimit-Reset-After`); buckets are per route and per major parameter (the guild). A call
whose bucket is spent waits for its reset when that is short (`max_wait` seconds, inside a
consumer's timeout), else raises `DiscordRetryLater` without calling Discord. A 429 carries
`retry_after` (and `global: true` when the whole bot is limited): the adapter waits and tries
once more when the wait is short, else raises `DiscordRetryLater(retry_after=…)` so the delivery
is retried later by its queue. A 5xx or no answer is `DiscordRetryLater` too; another 4xx is
`DiscordRefused`.

The limits are remembered per adapter (one per store and warm function): a serverless function
cannot share them across processes, and does not need to, as each delivery makes a few calls.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from webstore.discord import (
    API_BASE_URL,
    UNKNOWN_MEMBER,
    DiscordError,
    DiscordRefused,
    DiscordRetryLater,
    DiscordUser,
    Guild,
    Member,
    OAuthToken,
    Role,
)

USER_AGENT = "DiscordBot (https://github.com/webstore, 1.0)"
TIMEOUT_SECONDS = 5.0
MAX_WAIT_SECONDS = 2.0
LOGGED_BODY_CHARS = 1000
_MAJOR = frozenset({"guilds", "channels", "webhooks"})


def route_key(method: str, path: str) -> tuple[str, str]:
    """(the route, its major parameters): snowflakes after a major segment stay, others are `:id`.

    `PUT /guilds/1/members/2/roles/3` → (`PUT /guilds/{}/members/:id/roles/:id`, `1`).
    """
    parts = path.strip("/").split("/")
    shape: list[str] = []
    major: list[str] = []
    for i, part in enumerate(parts):
        if part.isdigit():
            if i and parts[i - 1] in _MAJOR:
                shape.append("{}")
                major.append(part)
            else:
                shape.append(":id")
        else:
            shape.append(part)
    return f"{method} /{'/'.join(shape)}", "/".join(major)


@dataclass
class _Bucket:
    remaining: int | None = None
    reset_at: float = 0.0


class RateLimits:
    """What Discord said of the buckets (and the global limit), keyed as Discord keys them."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._bucket_of_route: dict[str, str] = {}
        self._buckets: dict[tuple[str, str], _Bucket] = {}
        self.global_until = 0.0

    def _key(self, method: str, path: str) -> tuple[str, str]:
        route, major = route_key(method, path)
        return self._bucket_of_route.get(route, route), major

    def wait_needed(self, method: str, path: str) -> float:
        """Seconds until a call on this route may go (0: now)."""
        now = self._clock()
        wait = max(0.0, self.global_until - now)
        bucket = self._buckets.get(self._key(method, path))
        if bucket is not None and bucket.remaining == 0 and bucket.reset_at > now:
            wait = max(wait, bucket.reset_at - now)
        return wait

    def update(self, method: str, path: str, headers: Mapping[str, str]) -> None:
        route, major = route_key(method, path)
        name = headers.get("x-ratelimit-bucket")
        if name:
            self._bucket_of_route[route] = name
        remaining = headers.get("x-ratelimit-remaining")
        reset_after = headers.get("x-ratelimit-reset-after")
        if remaining is None or reset_after is None:
            return
        try:
            bucket = _Bucket(int(remaining), self._clock() + float(reset_after))
        except ValueError:
            return
        self._buckets[(name or route, major)] = bucket

    def limited(self, seconds: float, *, is_global: bool, method: str, path: str) -> None:
        """A 429: nothing goes on this route (or at all) for `seconds`."""
        until = self._clock() + seconds
        if is_global:
            self.global_until = max(self.global_until, until)
        else:
            self._buckets[self._key(method, path)] = _Bucket(0, until)


def _body_text(response: httpx.Response) -> str:
    return response.text[:LOGGED_BODY_CHARS]


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


class HttpDiscord:
    """One store's application and bot. `base_url` is Discord's API, or a stand-in's."""

    def __init__(
        self,
        *,
        client_id: str,
        client_secret: str,
        bot_token: str,
        base_url: str = API_BASE_URL,
        max_wait: float = MAX_WAIT_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.client_id = client_id
        self._client_secret = client_secret
        self._bot_token = bot_token
        self.max_wait = max_wait
        self._sleep = sleep
        self.limits = RateLimits(clock)
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"),
            timeout=TIMEOUT_SECONDS,
            follow_redirects=False,
            headers={"User-Agent": USER_AGENT},
            transport=transport,
        )

    def close(self) -> None:
        self._http.close()

    # -- the one way every call goes -------------------------------------------------------

    def _call(
        self,
        method: str,
        path: str,
        *,
        auth: str | None = None,
        json: Any = None,
        data: Mapping[str, str] | None = None,
        basic: tuple[str, str] | None = None,
        reason: str | None = None,
    ) -> httpx.Response:
        headers: dict[str, str] = {}
        if basic is None:
            headers["Authorization"] = auth or f"Bot {self._bot_token}"
        if reason:
            headers["X-Audit-Log-Reason"] = reason[:200]
        for attempt in (1, 2):
            wait = self.limits.wait_needed(method, path)
            if wait > self.max_wait:
                raise DiscordRetryLater(f"rate limited on {method} {path} for {wait:.1f}s", retry_after=wait)
            if wait:
                self._sleep(wait)
            try:
                response = self._http.request(
                    method,
                    path,
                    headers=headers,
                    json=json,
                    data=data,
                    auth=basic if basic else httpx.USE_CLIENT_DEFAULT,
                )
            except httpx.HTTPError as exc:
                raise DiscordRetryLater(
                    f"{method} {path}: no answer from Discord ({type(exc).__name__})"
                ) from exc
            self.limits.update(method, path, response.headers)
            if response.status_code == 429:
                body = _json(response) or {}
                retry_after = float(body.get("retry_after") or response.headers.get("retry-after") or 1.0)
                is_global = bool(body.get("global")) or response.headers.get("x-ratelimit-global") == "true"
                self.limits.limited(retry_after, is_global=is_global, method=method, path=path)
                if attempt == 1 and retry_after <= self.max_wait:
                    continue
                raise DiscordRetryLater(
                    f"rate limited on {method} {path}",
                    retry_after=retry_after,
                    status=429,
                    body=_body_text(response),
                )
            if response.status_code >= 500:
                raise DiscordRetryLater(
                    f"{method} {path}: Discord answered {response.status_code}",
                    status=response.status_code,
                    body=_body_text(response),
                )
            if response.status_code >= 400:
                body = _json(response)
                code = body.get("code") if isinstance(body, dict) else None
                message = body.get("message") if isinstance(body, dict) else None
                raise DiscordRefused(
                    f"{method} {path}: {response.status_code} {message or response.reason_phrase}",
                    status=response.status_code,
                    code=code if isinstance(code, int) else None,
                    body=_body_text(response),
                )
            return response
        raise AssertionError("unreachable")  # pragma: no cover

    # -- the port --------------------------------------------------------------------------

    def exchange_code(self, code: str, redirect_uri: str, code_verifier: str) -> OAuthToken:
        response = self._call(
            "POST",
            "/oauth2/token",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": redirect_uri,
                "code_verifier": code_verifier,
            },
            basic=(self.client_id, self._client_secret),
        )
        body = response.json()
        return OAuthToken(
            access_token=str(body["access_token"]),
            refresh_token=body.get("refresh_token"),
            expires_in=int(body.get("expires_in") or 0),
            scopes=frozenset(str(body.get("scope") or "").split()),
        )

    def check_client(self) -> None:
        """The client id and secret, checked with Discord: a client-credentials grant (which
        Discord gives an application's owner) answers 401 `invalid_client` for a wrong pair."""
        self._call(
            "POST",
            "/oauth2/token",
            data={"grant_type": "client_credentials", "scope": "identify"},
            basic=(self.client_id, self._client_secret),
        )

    def current_user(self, access_token: str) -> DiscordUser:
        return _user(self._call("GET", "/users/@me", auth=f"Bearer {access_token}").json())

    def bot_user(self) -> DiscordUser:
        return _user(self._call("GET", "/users/@me").json())

    def bot_guilds(self) -> list[Guild]:
        return [
            Guild(str(g["id"]), str(g.get("name") or ""))
            for g in self._call("GET", "/users/@me/guilds").json()
        ]

    def guild_roles(self, guild_id: str) -> list[Role]:
        return [
            Role(str(r["id"]), str(r.get("name") or ""), int(r.get("position") or 0), bool(r.get("managed")))
            for r in self._call("GET", f"/guilds/{guild_id}/roles").json()
        ]

    def get_member(self, guild_id: str, user_id: str) -> Member | None:
        try:
            body = self._call("GET", f"/guilds/{guild_id}/members/{user_id}").json()
        except DiscordRefused as exc:
            if exc.code == UNKNOWN_MEMBER or exc.status == 404:
                return None
            raise
        return Member(user_id, frozenset(str(r) for r in body.get("roles") or ()))

    def add_member(self, guild_id: str, user_id: str, access_token: str, roles: list[str]) -> bool:
        response = self._call(
            "PUT",
            f"/guilds/{guild_id}/members/{user_id}",
            json={"access_token": access_token, "roles": roles},
        )
        return response.status_code == 201

    def add_role(self, guild_id: str, user_id: str, role_id: str, reason: str) -> None:
        self._call("PUT", f"/guilds/{guild_id}/members/{user_id}/roles/{role_id}", reason=reason)

    def remove_role(self, guild_id: str, user_id: str, role_id: str, reason: str) -> None:
        try:
            self._call("DELETE", f"/guilds/{guild_id}/members/{user_id}/roles/{role_id}", reason=reason)
        except DiscordRefused as exc:
            # The member has left (or the role was deleted): they do not hold it. Done.
            if exc.status == 404:
                return
            raise


def _user(body: dict[str, Any]) -> DiscordUser:
    return DiscordUser(str(body["id"]), str(body.get("username") or ""), body.get("global_name"))


__all__ = ["DiscordError", "HttpDiscord", "RateLimits", "route_key"]
