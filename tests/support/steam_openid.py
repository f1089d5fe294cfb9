"""A stand-in for Steam's OpenID 2.0 endpoint on 127.0.0.1 (`steam_openid_url` in tests).

`POST /openid/login` with `openid.mode=check_authentication` answers in OpenID's key-value
form, `ns:…\\nis_valid:true` or `false`, as Steam does: true only for an assertion this
stand-in signed (`assertion()`), unchanged. `down` makes it answer 503 instead. The posted
bodies are kept (`checks`) so a test can see what was asked.

`GET /ISteamUser/GetPlayerSummaries/v2/?key=&steamids=` stands in for Steam's Web API: with
the key `api_key` it answers `{"response": {"players": [{"steamid", "personaname", …}]}}` for
the ids in `personas`, with any other key 403 as Steam does; the queries are kept (`summaries`).

`GET /openid/login?openid.mode=checkid_setup…` (the browser sent to Steam) signs the player in
at once as `approve_as` (a Steam64 id: what a player signing in on Steam's page does) and sends
the browser back to `openid.return_to` with a fresh assertion (kept in `issued`).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlencode

PATH = "/openid/login"
SUMMARIES_PATH = "/ISteamUser/GetPlayerSummaries/v2/"
NS = "http://specs.openid.net/auth/2.0"
SIGNED = "signed,op_endpoint,claimed_id,identity,return_to,response_nonce,assoc_handle"


@dataclass
class StandInSteam:
    port: int = 0
    down: bool = False
    checks: list[dict[str, str]] = field(default_factory=list)
    api_key: str = "0123456789ABCDEF0123456789ABCDEF"
    personas: dict[str, str] = field(default_factory=dict)
    summaries: list[dict[str, str]] = field(default_factory=list)
    approve_as: str | None = None
    issued: list[str] = field(default_factory=list)

    def sign_in_page(self, path: str) -> tuple[int, str]:
        """Steam's sign-in page, already signed in as `approve_as`: (status, where to)."""
        route, _, query = path.partition("?")
        params = dict(parse_qsl(query))
        return_to = params.get("openid.return_to", "")
        if (
            route != PATH
            or params.get("openid.mode") != "checkid_setup"
            or not self.approve_as
            or not return_to
        ):
            return 400, ""
        nonce = f"e2e{len(self.issued)}"
        assertion = self.assertion(self.approve_as, return_to, datetime.now(UTC), nonce=nonce)
        back = return_to + ("&" if "?" in return_to else "?") + urlencode(assertion)
        self.issued.append(back)
        return 302, back

    @property
    def web_api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def player_summaries(self, path: str) -> tuple[int, bytes]:
        """Steam's answer to a GetPlayerSummaries query."""
        route, _, query = path.partition("?")
        params = dict(parse_qsl(query))
        self.summaries.append(params)
        if self.down or route != SUMMARIES_PATH:
            return 503, b""
        if params.get("key") != self.api_key:
            return 403, b"<html><body>Forbidden</body></html>"
        players = [
            {"steamid": i, "communityvisibilitystate": 3, "personaname": self.personas[i]}
            for i in params.get("steamids", "").split(",")
            if i in self.personas
        ]
        return 200, json.dumps({"response": {"players": players}}).encode()

    @property
    def login_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{PATH}"

    def _sig(self, params: dict[str, str]) -> str:
        names = params.get("openid.signed", "").split(",")
        text = "\n".join(f"{n}:{params.get('openid.' + n, '')}" for n in names)
        return hashlib.sha256(text.encode()).hexdigest()

    def assertion(self, steam_id: str, return_to: str, at: datetime, nonce: str = "abc") -> dict[str, str]:
        """A positive assertion as Steam sends the player back with it."""
        claimed = f"https://steamcommunity.com/openid/id/{steam_id}"
        params = {
            "openid.ns": NS,
            "openid.mode": "id_res",
            "openid.op_endpoint": self.login_url,
            "openid.claimed_id": claimed,
            "openid.identity": claimed,
            "openid.return_to": return_to,
            "openid.response_nonce": at.strftime("%Y-%m-%dT%H:%M:%SZ") + nonce,
            "openid.assoc_handle": "1234567890",
            "openid.signed": SIGNED,
        }
        params["openid.sig"] = self._sig(params)
        return params

    def is_valid(self, params: dict[str, str]) -> bool:
        return params.get("openid.mode") == "check_authentication" and params.get("openid.sig") == self._sig(
            params
        )


@contextmanager
def running_steam() -> Iterator[StandInSteam]:
    """The stand-in, serving in a thread until the block ends."""
    steam = StandInSteam()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            params = dict(parse_qsl(self.rfile.read(length).decode()))
            steam.checks.append(params)
            if steam.down or self.path != PATH:
                status, body = 503, b""
            else:
                verdict = "true" if steam.is_valid(params) else "false"
                status, body = 200, f"ns:{NS}\nis_valid:{verdict}\n".encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path.startswith(PATH):
                status, location = steam.sign_in_page(self.path)
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            status, body = steam.player_summaries(self.path)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    steam.port = int(server.server_address[1])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield steam
    finally:
        server.shutdown()
        server.server_close()
