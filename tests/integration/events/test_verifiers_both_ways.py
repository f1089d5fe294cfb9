"""Our deliveries verify with both kinds of receiver: HMAC over the raw body, and over the body
re-serialised by JavaScript (the official Node SDK), checked by running node on what a real
receiver on 127.0.0.1 got (tests/integration/webhooks/verify_signature.js)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from webstore.domain.payment_status import PaymentStatus
from webstore.events import DomainEvent
from webstore.payments.subject import SubjectLine, SubjectPayment, payment_subject
from webstore.services import Services
from webstore.webhooks import Outcome, WebhookDispatcher

from .conftest import SECRET, Behaviour, Receiver, add_endpoint, echo_then

VERIFIER = Path(__file__).with_name("verify_signature.js")
NODE = shutil.which("node")
ACCOUNT = 9

pytestmark = [
    pytest.mark.usefixtures("allow_private"),
    pytest.mark.skipif(NODE is None, reason="node is not installed"),
]


def node_verifies(raw: bytes, signature: str) -> dict[str, bool]:
    assert NODE is not None
    done = subprocess.run(
        [NODE, str(VERIFIER), SECRET, signature], input=raw, capture_output=True, check=True, timeout=30
    )
    result: dict[str, bool] = json.loads(done.stdout)
    return result


def payment_event() -> DomainEvent:
    """A payment whose numbers Python would write as 0.0, 1.0 and 10.0, a non-ASCII name, and
    custom data with integer-like keys (which JavaScript reorders)."""
    subject = payment_subject(
        SubjectPayment(
            transaction_id="tbx-9-0000001",
            status=PaymentStatus.COMPLETE,
            created_at=datetime(2026, 11, 23, 15, 5, 3, tzinfo=UTC),
            currency="EUR",
            price_paid=Decimal("10.00"),
            gateway="Stripe",
            email="zoë@example.com",
            ip="198.51.100.7",
            country="DE",
            username_id=7,
            username="Zoë",
            lines=[
                SubjectLine(
                    10,
                    "Épée « diamant »",
                    1,
                    Decimal("1.0"),
                    Decimal("1.00"),
                    {"colour": "rot/grün"},
                    7,
                    "Zoë",
                ),
                SubjectLine(11, "Coins\n1,000", 2, Decimal("4.50"), Decimal("9.00"), {}, 7, "Zoë"),
            ],
            gift_cards=[("GIFT-1", Decimal("0.50"))],
            custom={"b": 1.0, "10": "ten", "2": [0.0, 1e21, 1e-7], "a": {"1": None, "x": "\u2028\t\u0001"}},
        )
    )
    return DomainEvent(type="payment.completed", account_id=ACCOUNT, subject=subject)


def test_node_sdk_and_raw_body_receivers_both_verify_a_payment_delivery(
    aws: Services, receiver_factory: Callable[[Behaviour], Receiver]
) -> None:
    receiver = receiver_factory(echo_then())
    add_endpoint(aws, ACCOUNT, 1, receiver.url)
    result = WebhookDispatcher(aws).dispatch(payment_event())
    assert [o.outcome for o in result.outcomes] == [Outcome.DELIVERED]

    for delivered in receiver.requests:  # the validation handshake and the payment
        assert node_verifies(delivered.raw, delivered.headers["X-Signature"]) == {
            "raw": True,
            "reserialised": True,
        }
    [payment] = receiver.events
    text = payment.raw.decode()
    assert '"price_paid":{"amount":10,"currency":"EUR"}' in text  # JS writes 10.0 as 10
    assert '"amount":0.5' in text and "Zoë" in text and "\\u00eb" not in text
    assert '"custom":{"2":[0,1e+21,1e-7],"10":"ten","b":1,' in text
    assert payment.body["subject"]["price_paid"]["amount"] == 10


def test_the_old_python_form_would_fail_the_node_sdk() -> None:
    """Why the canonical form matters: Python's default writes 10.0, which JavaScript re-writes
    as 10, so a re-serialising receiver computes another digest."""
    import hashlib
    import hmac

    raw = json.dumps({"amount": 10.0}, separators=(",", ":")).encode()
    digest = hashlib.sha256(raw).hexdigest()
    signature = hmac.new(SECRET.encode(), digest.encode(), hashlib.sha256).hexdigest()
    assert node_verifies(raw, signature) == {"raw": True, "reserialised": False}
