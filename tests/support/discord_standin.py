"""A stand-in for Discord's HTTP API (v10) and OAuth2 pages on 127.0.0.1, for tests and `serve`.

It keeps one application (client id and secret), one bot (its token and user), users, and guilds
with roles (by position) and members (with roles), and answers the routes the store uses as
Discord does:

- `GET /oauth2/authorize` (a page with an "Authorize" button for `signed_in`, the user "logged in
  to Discord"; it redirects to `redirect_uri?code=…&state=…`), `POST /oauth2/token` (client Basic
  auth, 401 `invalid_client` for a wrong pair; the code once, the same `redirect_uri`, PKCE S256
  checked; or `client_credentials`, the application owner's token), `GET /users/@me` (Bearer: the
  user; Bot: the bot), `GET /users/@me/guilds` (the bot's guilds);
- `GET /guilds/{g}/roles`, `GET /guilds/{g}/members/{u}` (404 code 10007 when not a member),
  `PUT /guilds/{g}/members/{u}` (an access token with `guilds.join`; 201 with the roles, 204 and
  the roles ignored when already a member), `PUT`/`DELETE /guilds/{g}/members/{u}/roles/{r}`
  (204; removing a role not held is 204 too; 403 code 50013 when the role sits at or above the
  bot's highest role).

Every answer carries `X-RateLimit-Bucket`, `-Remaining` and `-Reset-After`; a call on a bucket
the stand-in was told is spent (`spend_bucket`) before its reset gets a 429, as a client that
ignores the headers would. `fail_next(status, retry_after=…)` makes the next calls fail (429 with
`retry_after`, or a 5xx). `calls` records every call that changes something, for "granted once".
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit

from webstore.discord.http import route_key


@dataclass
class StandInGuild:
    id: str
    name: str
    roles: dict[str, tuple[str, int]] = field(default_factory=dict)  # id → (name, position)
    members: dict[str, set[str]] = field(default_factory=dict)  # user id → role ids
    bot_roles: set[str] = field(default_factory=set)


@dataclass
class _Failure:
    status: int
    retry_after: float | None
    is_global: bool
    match: str | None


@dataclass
class StandInDiscord:
    client_id: str = "1100000000000000001"
    client_secret: str = "standin-client-secret"
    bot_token: str = "standin-bot-token"
    bot_id: str = "1100000000000000002"
    port: int = 0
    users: dict[str, str] = field(default_factory=dict)  # id → username
    guilds: dict[str, StandInGuild] = field(default_factory=dict)
    signed_in: str | None = None  # the user the authorize page acts for
    calls: list[tuple[str, str]] = field(default_factory=list)
    requests: list[tuple[str, str]] = field(default_factory=list)
    _codes: dict[str, dict[str, Any]] = field(default_factory=dict)
    _tokens: dict[str, tuple[str, frozenset[str]]] = field(default_factory=dict)
    _failures: list[_Failure] = field(default_factory=list)
    _spent: dict[str, float] = field(default_factory=dict)  # bucket → reset (monotonic)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def authorize_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/oauth2/authorize"

    # -- set-up ----------------------------------------------------------------------------

    def add_guild(
        self, guild_id: str, name: str, roles: dict[str, tuple[str, int]], bot_role: str
    ) -> StandInGuild:
        guild = StandInGuild(guild_id, name, dict(roles), {}, {bot_role})
        guild.members[self.bot_id] = {bot_role}
        self.guilds[guild_id] = guild
        return guild

    def add_user(self, user_id: str, username: str) -> None:
        self.users[user_id] = username

    def issue_token(self, user_id: str, scopes: str = "identify guilds.join") -> str:
        token = secrets.token_urlsafe(16)
        self._tokens[token] = (user_id, frozenset(scopes.split()))
        return token

    def fail_next(
        self,
        status: int,
        *,
        retry_after: float | None = None,
        is_global: bool = False,
        times: int = 1,
        match: str | None = None,
    ) -> None:
        """The next `times` calls (whose path contains `match`) answer `status`."""
        for _ in range(times):
            self._failures.append(_Failure(status, retry_after, is_global, match))

    def spend_bucket(self, method: str, path: str, reset_after: float) -> None:
        """The bucket of this route is spent for `reset_after` seconds: the next answer on it says
        Remaining 0, and a call before the reset is a 429."""
        bucket = self.bucket(method, path)
        self._spent.pop(f"seen:{bucket}", None)
        self._spent[bucket] = time.monotonic() + reset_after

    @staticmethod
    def bucket(method: str, path: str) -> str:
        route, _ = route_key(method, path.removeprefix("/api/v10"))
        return hashlib.sha1(route.encode()).hexdigest()[:12]

    def join(self, guild_id: str, user_id: str) -> None:
        """The user joins the guild (with no roles), as a member who left and came back."""
        with self._lock:
            self.guilds[guild_id].members.setdefault(user_id, set())

    def leave(self, guild_id: str, user_id: str) -> None:
        """The member leaves the guild: Discord forgets their roles there."""
        with self._lock:
            self.guilds[guild_id].members.pop(user_id, None)

    def roles_of(self, guild_id: str, user_id: str) -> set[str] | None:
        members = self.guilds[guild_id].members
        return set(members[user_id]) if user_id in members else None

    def changes(self) -> list[tuple[str, str]]:
        return list(self.calls)

    # -- answering -------------------------------------------------------------------------

    def handle(
        self, method: str, raw_path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        split = urlsplit(raw_path)
        path, query = split.path, dict(parse_qsl(split.query))
        with self._lock:
            self.requests.append((method, path))
            if method == "GET" and path == "/oauth2/authorize":
                return self._authorize_page(query)
            if method == "GET" and path == "/oauth2/authorize/approve":
                return self._approve(query)
            api = path.removeprefix("/api/v10")
            bucket = self.bucket(method, path)
            rate = {
                "X-RateLimit-Bucket": bucket,
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "4",
                "X-RateLimit-Reset-After": "1.000",
            }
            reset = self._spent.get(bucket)
            if reset is not None:
                left = reset - time.monotonic()
                if left > 0:
                    rate.update({"X-RateLimit-Remaining": "0", "X-RateLimit-Reset-After": f"{left:.3f}"})
                    if self._seen_spent(bucket):
                        return _json(
                            429,
                            {
                                "message": "You are being rate limited.",
                                "retry_after": round(left, 3),
                                "global": False,
                            },
                            rate,
                        )
                else:
                    del self._spent[bucket]
            for i, failure in enumerate(self._failures):
                if failure.match is None or failure.match in api:
                    del self._failures[i]
                    return self._failure(failure, rate)
            status, answer = self._api(method, api, headers, body)
            if method in ("PUT", "DELETE", "POST") and api != "/oauth2/token" and status < 300:
                self.calls.append((method, api))
            if answer is None:
                return status, rate, b""
            return _json(status, answer, rate)

    def _seen_spent(self, bucket: str) -> bool:
        """The first call after `spend_bucket` is answered (and learns Remaining 0); later ones,
        before the reset, are refused."""
        key = f"seen:{bucket}"
        if key in self._spent:
            return True
        self._spent[key] = 0.0
        return False

    def _failure(self, failure: _Failure, rate: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        if failure.status == 429:
            extra = dict(rate, **{"Retry-After": str(failure.retry_after or 1)})
            if failure.is_global:
                extra["X-RateLimit-Global"] = "true"
                extra["X-RateLimit-Scope"] = "global"
            return _json(
                429,
                {
                    "message": "You are being rate limited.",
                    "retry_after": failure.retry_after or 1.0,
                    "global": failure.is_global,
                },
                extra,
            )
        return failure.status, {"Content-Type": "text/plain"}, b"upstream connect error"

    def _authorize_page(self, query: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        if query.get("client_id") != self.client_id or query.get("response_type") != "code":
            return 400, {"Content-Type": "text/plain"}, b"invalid client_id or response_type"
        if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
            return 400, {"Content-Type": "text/plain"}, b"PKCE S256 required"
        user = self.users.get(self.signed_in or "", "nobody")
        approve = "/oauth2/authorize/approve?" + urlencode(query)
        page = (
            "<!doctype html><title>Discord stand-in</title>"
            f"<p>Signed in as <b>{html.escape(user)}</b>. "
            f"The app asks for: {html.escape(query.get('scope', ''))}</p>"
            f'<a id="authorize" href="{html.escape(approve)}">Authorize</a>'
        )
        return 200, {"Content-Type": "text/html; charset=utf-8"}, page.encode()

    def _approve(self, query: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        if self.signed_in is None:
            return 400, {"Content-Type": "text/plain"}, b"no user signed in"
        code = secrets.token_urlsafe(12)
        self._codes[code] = {
            "user": self.signed_in,
            "redirect_uri": query.get("redirect_uri", ""),
            "challenge": query.get("code_challenge", ""),
            "scopes": frozenset(query.get("scope", "").split()),
        }
        target = (
            query.get("redirect_uri", "") + "?" + urlencode({"code": code, "state": query.get("state", "")})
        )
        return 302, {"Location": target}, b""

    def _api(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, Any]:
        auth = headers.get("authorization", "")
        if method == "POST" and path == "/oauth2/token":
            return self._token(auth, body)
        if method == "GET" and path == "/users/@me" and auth.startswith("Bearer "):
            owner = self._tokens.get(auth.removeprefix("Bearer "))
            if owner is None:
                return 401, {"message": "401: Unauthorized", "code": 0}
            return 200, {
                "id": owner[0],
                "username": self.users.get(owner[0], "user"),
                "global_name": None,
            }
        if auth != f"Bot {self.bot_token}":
            return 401, {"message": "401: Unauthorized", "code": 0}
        parts = path.strip("/").split("/")
        if method == "GET" and path == "/users/@me":
            return 200, {"id": self.bot_id, "username": "store-bot", "bot": True}
        if method == "GET" and path == "/users/@me/guilds":
            return 200, [
                {"id": g.id, "name": g.name} for g in self.guilds.values() if self.bot_id in g.members
            ]
        if len(parts) < 3 or parts[0] != "guilds" or parts[1] not in self.guilds:
            return 404, {"message": "Unknown Guild", "code": 10004}
        guild = self.guilds[parts[1]]
        if method == "GET" and parts[2:] == ["roles"]:
            return 200, [
                {"id": rid, "name": n, "position": p, "managed": False} for rid, (n, p) in guild.roles.items()
            ]
        if parts[2] != "members" or len(parts) < 4:
            return 404, {"message": "404: Not Found", "code": 0}
        user = parts[3]
        if len(parts) == 4 and method == "GET":
            if user not in guild.members:
                return 404, {"message": "Unknown Member", "code": 10007}
            return 200, {"user": {"id": user}, "roles": sorted(guild.members[user])}
        if len(parts) == 4 and method == "PUT":
            return self._add_member(guild, user, json.loads(body or b"{}"))
        if len(parts) == 6 and parts[4] == "roles" and method in ("PUT", "DELETE"):
            role = parts[5]
            if role not in guild.roles:
                return 404, {"message": "Unknown Role", "code": 10011}
            if user not in guild.members:
                return 404, {"message": "Unknown Member", "code": 10007}
            if not self._may_manage(guild, role):
                return 403, {"message": "Missing Permissions", "code": 50013}
            if method == "PUT":
                guild.members[user].add(role)
            else:
                guild.members[user].discard(role)
            return 204, None
        return 404, {"message": "404: Not Found", "code": 0}

    def _may_manage(self, guild: StandInGuild, role: str) -> bool:
        top = max((guild.roles[r][1] for r in guild.bot_roles if r in guild.roles), default=0)
        return guild.roles[role][1] < top

    def _add_member(self, guild: StandInGuild, user: str, body: dict[str, Any]) -> tuple[int, Any]:
        owner = self._tokens.get(str(body.get("access_token") or ""))
        if owner is None or owner[0] != user or "guilds.join" not in owner[1]:
            return 403, {"message": "Missing Access", "code": 50001}
        if user in guild.members:
            return 204, None
        roles = [str(r) for r in body.get("roles") or ()]
        for role in roles:
            if role not in guild.roles or not self._may_manage(guild, role):
                return 403, {"message": "Missing Permissions", "code": 50013}
        guild.members[user] = set(roles)
        return 201, {"user": {"id": user}, "roles": roles}

    def _token(self, auth: str, body: bytes) -> tuple[int, Any]:
        expected = "Basic " + base64.b64encode(f"{self.client_id}:{self.client_secret}".encode()).decode()
        if auth != expected:
            return 401, {"error": "invalid_client"}
        form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        if form.get("grant_type") == "client_credentials":  # the application owner's own token
            scopes = form.get("scope", "identify")
            return 200, {
                "access_token": secrets.token_urlsafe(16),
                "token_type": "Bearer",
                "expires_in": 604800,
                "scope": scopes,
            }
        grant = self._codes.pop(form.get("code", ""), None)
        if grant is None or form.get("grant_type") != "authorization_code":
            return 400, {"error": "invalid_grant", "error_description": 'Invalid "code" in request.'}
        if form.get("redirect_uri") != grant["redirect_uri"]:
            return 400, {"error": "invalid_grant", "error_description": "Invalid redirect_uri"}
        verifier = form.get("code_verifier", "")
        digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        if digest != grant["challenge"]:
            return 400, {"error": "invalid_grant", "error_description": "Invalid code_verifier"}
        token = secrets.token_urlsafe(16)
        self._tokens[token] = (grant["user"], grant["scopes"])
        return 200, {
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": 604800,
            "refresh_token": secrets.token_urlsafe(16),
            "scope": " ".join(sorted(grant["scopes"])),
        }


def _json(status: int, body: Any, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    return status, dict(headers, **{"Content-Type": "application/json"}), json.dumps(body).encode()


def _handler(discord: StandInDiscord) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, out_headers, out = discord.handle(self.command, self.path, headers, body)
            self.send_response(status)
            for name, value in out_headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        do_GET = do_PUT = do_DELETE = do_POST = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def running(discord: StandInDiscord | None = None) -> Iterator[StandInDiscord]:
    """The stand-in served on 127.0.0.1 (a free port) while the block runs."""
    discord = discord or StandInDiscord()
    server = ThreadingHTTPServer(("127.0.0.1", discord.port), _handler(discord))
    discord.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield discord
    finally:
        server.shutdown()
        server.server_close()
