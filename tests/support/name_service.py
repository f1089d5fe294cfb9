"""A stand-in for Mojang's public profile lookup, on 127.0.0.1, with settable answers.

`GET /users/profiles/minecraft/{name}` answers as the real service does: 200 `{"id", "name"}`
(the account's UUID without dashes and the name's real casing) for a known name, 404 with an
error body for an unknown one. `down` makes it answer like a service in trouble instead:
an HTTP status (429, 500, 503), "timeout" (no answer for longer than the adapter waits) or
"garbage" (200 with a body that is not a profile). Used by unit, integration and e2e tests
and by `scripts/` (the local stack's `--identity-base-url`).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

PATH = "/users/profiles/minecraft/"
BY_UUID = "/user/profile/"  # `GET /user/profile/{uuid}`: the same answers, by the account's UUID
# Two well-known accounts, as the real service answers for them (public UUIDs, real casing).
NOTCH = ("069a79f444e94726a5befca90e38aaf5", "Notch")
JEB = ("853c80ef3c3749fdaa49938b674adae6", "jeb_")


@dataclass
class StandInNameService:
    port: int = 0
    accounts: dict[str, tuple[str, str]] = field(default_factory=dict)  # name lower → (uuid, name)
    down: int | str | None = None  # None: answering; a status, "timeout" or "garbage"
    hang_seconds: float = 5.0  # how long "timeout" keeps a request waiting
    requests: list[str] = field(default_factory=list)  # the names asked for, in order

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def add(self, uuid: str, name: str) -> None:
        self.accounts[name.lower()] = (uuid, name)

    def answer(self, name: str) -> tuple[int, bytes]:
        self.requests.append(name)
        if self.down == "timeout":
            time.sleep(self.hang_seconds)
            return 504, b""
        if self.down == "garbage":
            return 200, b"<html>maintenance</html>"
        if isinstance(self.down, int):
            return self.down, json.dumps({"error": "TooManyRequestsException"}).encode()
        if name.lower() in self.accounts:
            uuid, real = self.accounts[name.lower()]
            return 200, json.dumps({"id": uuid, "name": real}).encode()
        body = {"path": f"{PATH}{name}", "errorMessage": f"Couldn't find any profile with name {name}"}
        return 404, json.dumps(body).encode()


@contextmanager
def running_name_service(*accounts: tuple[str, str]) -> Iterator[StandInNameService]:
    """The stand-in, serving in a thread until the block ends."""
    service = StandInNameService()
    for uuid, name in accounts:
        service.add(uuid, name)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.startswith(BY_UUID):
                wanted = unquote(self.path[len(BY_UUID) :]).replace("-", "").lower()
                names = [name for uuid, name in service.accounts.values() if uuid == wanted]
                status, body = service.answer(names[0]) if names else (404, b'{"error": "Not Found"}')
            elif not self.path.startswith(PATH):
                status, body = 404, b'{"error": "Not Found"}'
            else:
                status, body = service.answer(unquote(self.path[len(PATH) :]))
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:  # the client gave up waiting ("timeout")
                pass

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    service.port = int(server.server_address[1])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield service
    finally:
        server.shutdown()
        server.server_close()


def set_online_mode(table: Any, account_id: int, online: bool = True) -> None:
    """Switch a store's `online_mode` in the table, as re-importing its catalog would."""
    from webstore import keys

    table.update(
        keys.key(keys.store_pk(account_id), keys.STORE_ITEM),
        "SET online_mode = :on",
        values={":on": online},
    )


def set_bedrock_names(table: Any, account_id: int, prefix: str = "", unprefixed: bool = False) -> None:
    """Set how a store takes Bedrock (Floodgate) names, as re-importing its catalog would:
    `bedrock_prefix`, or `bedrock_unprefixed` (docs/decisions.md, "Bedrock names")."""
    from webstore import keys

    table.update(
        keys.key(keys.store_pk(account_id), keys.STORE_ITEM),
        "SET bedrock_prefix = :prefix, bedrock_unprefixed = :bare",
        values={":prefix": prefix, ":bare": unprefixed},
    )
