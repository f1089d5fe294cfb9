"""Start localstripe (tests/support/localstripe_server.py) on 127.0.0.1 for a test session,
and act as Stripe.js would against it: create a card method and confirm an intent with it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from tests.support.local_stack import free_port

if TYPE_CHECKING:
    from stripe import StripeClient

ROOT = Path(__file__).resolve().parents[2]
TEST_SECRET_KEY = "sk_test_localstripe0000000001"
TEST_PUBLISHABLE_KEY = "pk_test_localstripe0000000001"
TEST_WEBHOOK_SECRET = "whsec_localstripe0000000001"


@contextmanager
def localstripe() -> Iterator[str]:
    """A fresh localstripe on a free port; yields its API base URL."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "shared")])}
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.localstripe_server", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(base, process)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def _wait_until_up(base: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            error = process.stderr.read().decode() if process.stderr else ""
            raise RuntimeError(f"localstripe exited: {error[-2000:]}")
        try:
            request = urllib.request.Request(
                f"{base}/v1/customers", headers={"Authorization": f"Bearer {TEST_SECRET_KEY}"}
            )
            with urllib.request.urlopen(request, timeout=2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("localstripe did not start within 30 s")


def stripe_client(api_base: str) -> StripeClient:
    from stripe import StripeClient

    return StripeClient(TEST_SECRET_KEY, base_addresses={"api": api_base})


def pay_in_page(api_base: str, intent_id: str, card: str = "4242424242424242") -> str:
    """What Stripe.js does when the player pays: a card method, then confirm. The status after."""
    from stripe import CardError

    client = stripe_client(api_base)
    method = client.v1.payment_methods.create(
        params={"type": "card", "card": {"number": card, "exp_month": 12, "exp_year": 2030, "cvc": "123"}}
    )
    try:
        intent = client.v1.payment_intents.confirm(intent_id, params={"payment_method": method["id"]})
    except CardError:
        intent = client.v1.payment_intents.retrieve(intent_id)
    return str(intent["status"])
