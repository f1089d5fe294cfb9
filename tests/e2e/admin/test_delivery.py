"""Issue 16, "delivery you can see and fix", in headless Chromium against the local stack: the
owner resends a delivered command from the queue page, and redelivers a webhook that failed while
its receiver was down once the receiver is up again."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from tests.e2e.conftest import served
from tests.support.local_stack import free_port

pytestmark = pytest.mark.e2e
PLAYER = "DeliveryE2E"


class SwitchedReceiver:
    """Answers the handshake always; events with 503 while down."""

    def __init__(self) -> None:
        self.up = True
        self.accepted: list[str] = []
        self.port = free_port()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"


@pytest.fixture
def receiver() -> Iterator[SwitchedReceiver]:
    receiver = SwitchedReceiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            if body["type"] == "validation.webhook":
                status, answer = 200, json.dumps({"id": body["id"]}).encode()
            elif receiver.up:
                receiver.accepted.append(body["id"])
                status, answer = 200, b"{}"
            else:
                status, answer = 503, b"<b>maintenance</b>"
            self.send_response(status)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: Any) -> None:
            pass

    yield from served(ThreadingHTTPServer(("127.0.0.1", receiver.port), Handler), receiver)


def until(check: Callable[[], bool], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.25)
    raise AssertionError("timed out")


def sign_in(page: Page, stack: dict[str, Any]) -> None:
    page.goto(f"{stack['admin_url']}/login")
    page.fill("#email", stack["admin_email"])
    page.fill("#password", stack["admin_password"])
    page.click("button[type=submit]")
    page.wait_for_url(f"{stack['admin_url']}/")


def buy(stack: dict[str, Any]) -> str:
    with httpx.Client(
        base_url=stack["plugin_url"], headers={"X-Tebex-Secret": stack["server_secret"]}, timeout=10
    ) as http:
        paid = http.post("/payments", json={"ign": PLAYER, "packages": [{"id": 10}], "price": 5, "note": ""})
        assert paid.status_code == 200, paid.text
        return str(paid.json()["txn_id"])


def test_resend_a_delivered_command_from_the_queue_page(
    browser: Browser, local_stack: dict[str, Any]
) -> None:
    transaction = buy(local_stack)
    page = browser.new_page()
    sign_in(page, local_stack)
    page.goto(f"{local_stack['admin_url']}/queue?player={PLAYER}")
    # Package 10 gives on servers 1 and 2; the plugin of server 1 runs its own.
    waiting = [
        int(i) for i in re.findall(rf"<tr><td>([0-9]+)</td><td>1</td><td>{PLAYER}</td>", page.content())
    ]
    assert waiting, page.content()
    with httpx.Client(
        base_url=local_stack["plugin_url"],
        headers={"X-Tebex-Secret": local_stack["server_secret"]},
        timeout=10,
    ) as http:
        assert (
            http.request("DELETE", "/queue", json={"ids": waiting}).status_code == 204
        )  # the plugin ran them

    page.goto(f"{local_stack['admin_url']}/queue?player={PLAYER}")
    assert not re.search(rf"<tr><td>[0-9]+</td><td>1</td><td>{PLAYER}</td>", page.content())
    page.fill("input[name=transaction]", transaction)
    page.fill("input[name=command_ids]", str(waiting[0]))
    page.click("text=Resend")
    message = page.locator("p.done").inner_text()
    assert message.startswith("Queued again as command(s)")
    copy = int(message.rsplit(" ", 1)[1])
    page.goto(f"{local_stack['admin_url']}/queue?player={PLAYER}")
    assert f"<tr><td>{copy}</td><td>1</td><td>{PLAYER}</td>" in page.content()
    page.close()


def test_redeliver_a_failed_webhook_once_the_receiver_is_up(
    browser: Browser, local_stack: dict[str, Any], receiver: SwitchedReceiver
) -> None:
    admin = local_stack["admin_url"]
    page = browser.new_page()
    sign_in(page, local_stack)
    page.goto(f"{admin}/webhooks")
    page.fill("input[name=url]", receiver.url)
    page.fill("input[name=events]", "payment.completed")
    page.click("text=Add endpoint")
    secret = page.locator("#secret").inner_text()
    assert re.fullmatch(r"[0-9a-f]{40}", secret)
    page.click("text=Continue")
    endpoint_url = page.url
    page.click("text=Validate now")
    assert page.locator("p.done").inner_text() == "Endpoint validated"
    assert secret not in page.content()

    receiver.up = False
    buy(local_stack)

    def failed_row() -> bool:
        page.goto(endpoint_url)
        return "failed" in page.locator("table").last.inner_text() if page.locator("table").count() else False

    until(failed_row)
    page.locator("a[href^='/webhooks/deliveries/']").first.click()
    assert "HTTP 503" in page.content()
    assert "&lt;b&gt;maintenance&lt;/b&gt;" in page.content()  # the receiver's answer, escaped

    receiver.up = True  # the local worker's own retry is 30 s away
    page.click("text=Redeliver")
    assert page.locator("p.done").inner_text() == "Sent again"
    until(lambda: len(receiver.accepted) == 1)

    def delivered() -> bool:
        page.reload()
        return "· delivered ·" in page.content()

    until(delivered)
    assert "HTTP 200" in page.content()
    page.close()
