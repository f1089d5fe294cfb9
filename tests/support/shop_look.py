"""The shop's look changed on a running local stack the way the owner changes it: panel → Shop →
Look, its form posted over HTTP by a signed-in owner; and put back as it was afterwards (the
e2e tests share one stack). And a logo to show in the header: a small SVG served from loopback
(the look's logo is an address; the shop's policy loads images from http: and https:)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from tests.e2e.conftest import served
from tests.support.forms import form_fields
from tests.support.local_stack import free_port
from tests.support.panel import http_sign_in

LOGO = Path(__file__).resolve().parent / "shop_logo.svg"


def _look_form(http: httpx.Client) -> dict[str, str]:
    page = http.get("/shop/look")
    assert page.status_code == 200, page.text
    return form_fields(page.text, action="/shop/look")


def _save(http: httpx.Client, fields: dict[str, str]) -> None:
    saved = http.post("/shop/look", data=fields)
    assert saved.status_code == 303, f"the Look form refused {fields}: {saved.status_code} {saved.text}"


@contextmanager
def shop_look(stack: Mapping[str, Any], **changes: str) -> Iterator[None]:
    """The store's look with `changes` (the Look form's fields: `header_style="compact"`,
    `maintenance="on"`, …) saved and published while the block runs; then the form as it was
    before, saved again (a checkbox left out is off)."""
    cookies, _ = http_sign_in(stack["admin_url"], stack["admin_email"], stack["admin_password"])
    with httpx.Client(base_url=stack["admin_url"], cookies=cookies, timeout=15) as http:
        before = _look_form(http)
        _save(http, {**before, **changes})
        try:
            yield
        finally:
            now = _look_form(http)  # its CSRF token and the theme's new revision
            _save(http, {**before, "csrf": now["csrf"], "revision": now["revision"]})


@contextmanager
def logo_server() -> Iterator[str]:
    """The address of a logo (tests/support/shop_logo.svg) served on 127.0.0.1 while the block runs."""
    body = LOGO.read_bytes()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "image/svg+xml")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    yield from served(server, f"http://127.0.0.1:{server.server_port}/logo.svg")
