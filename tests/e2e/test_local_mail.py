"""Issue 24 on the real `webstore serve` process: a purchase through the storefront API and the
hosted checkout, with an address, leaves exactly one receipt as an `.eml` file in the state
directory (serve's default transport: nothing leaves the machine), with the transaction id and
the subscription's manage link."""

from __future__ import annotations

import email
import json
import time
from email.policy import default
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import free_port, wait_for_port
from tests.support.checkouts import Order, open_checkout, pay
from tests.support.local_stack import serving

pytestmark = pytest.mark.e2e


def test_a_purchase_leaves_one_receipt_in_the_state_directory(tmp_path: Path) -> None:
    state, creds_file = tmp_path / "state", tmp_path / "credentials.json"
    ports = free_port(), free_port()
    with serving(*ports, creds_file, "--state-dir", str(state), "--clock-interval", "0") as process:
        wait_for_port(ports[0], process, timeout=180)
        creds = json.loads(creds_file.read_text())
        with httpx.Client(timeout=20, follow_redirects=False) as http:
            checkout = open_checkout(http, creds, Order("Notch", [(1, 1)]))
            checkout.fields["email"] = "steve@example.com"
            assert pay(http, creds, checkout).status == 303
        mailbox = state / "mail"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not list(mailbox.glob("*.eml")):
            time.sleep(0.2)
        time.sleep(1)  # a second message, were one (wrongly) sent, would be written by now
        files = list(mailbox.glob("*.eml"))
    assert len(files) == 1, files
    message = email.message_from_bytes(files[0].read_bytes(), policy=default)
    assert message["To"] == "steve@example.com"
    assert message["Subject"].startswith("Your receipt from")
    assert message["Auto-Submitted"] == "auto-generated"
    text = message.get_body(("plain",)).get_content()
    assert "tbx-" in text
    assert f"{creds['headless_url'].split('/api/')[0]}/subscriptions/" in text
