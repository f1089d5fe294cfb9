"""The wire format: envelope, two-step signature (COMPAT.md), validation echo, subscriptions."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import UTC, datetime
from decimal import Decimal

from webstore.events import DomainEvent
from webstore.webhooks.envelope import (
    echo_matches,
    encode_body,
    envelope,
    signature,
    subscribes,
    validation_envelope,
    verify,
)


def test_the_envelope_carries_the_domain_event_id_type_date_and_subject() -> None:
    event = DomainEvent(type="payment.completed", account_id=1, subject={"custom": {"a": 1}})
    assert envelope(event) == {
        "id": event.id,
        "type": "payment.completed",
        "date": event.date,
        "subject": {"custom": {"a": 1}},
    }


def test_the_signature_is_an_hmac_of_the_hex_digest_of_the_body() -> None:
    body = encode_body({"id": "x", "type": "payment.completed", "date": "d", "subject": {}})
    digest = hashlib.sha256(body).hexdigest()
    expected = hmac.new(b"secret", digest.encode(), hashlib.sha256).hexdigest()
    assert signature("secret", body) == expected
    # A plain HMAC of the body is what COMPAT says receivers do NOT accept.
    assert signature("secret", body) != hmac.new(b"secret", body, hashlib.sha256).hexdigest()


def test_a_known_vector() -> None:
    body = b'{"id":"1","type":"t","date":"d","subject":{}}'
    assert (
        signature("k", body)
        == hmac.new(b"k", hashlib.sha256(body).hexdigest().encode(), hashlib.sha256).hexdigest()
    )
    assert verify("k", body, signature("k", body))
    assert not verify("other", body, signature("k", body))
    assert not verify("k", body + b" ", signature("k", body))
    assert not verify("k", body, "")


def test_bodies_are_json_with_decimal_numbers_as_numbers() -> None:
    body = encode_body({"price": Decimal("9.99"), "qty": Decimal("2"), "name": "Épée"})
    assert json.loads(body) == {"price": 9.99, "qty": 2, "name": "Épée"}


def test_validation_envelope_and_echo() -> None:
    handshake = validation_envelope(datetime(2026, 1, 1, tzinfo=UTC))
    assert handshake["type"] == "validation.webhook"
    assert handshake["subject"] == {}
    assert handshake["date"] == "2026-01-01T00:00:00+00:00"
    assert echo_matches(json.dumps({"id": handshake["id"]}).encode(), handshake["id"])
    assert echo_matches(json.dumps({"id": handshake["id"], "ok": True}).encode(), handshake["id"])
    assert not echo_matches(b'{"id": "other"}', handshake["id"])
    assert not echo_matches(b"[]", handshake["id"])
    assert not echo_matches(b"\xff", handshake["id"])
    assert not echo_matches(handshake["id"].encode(), handshake["id"])


def test_an_empty_event_list_subscribes_to_everything() -> None:
    assert subscribes([], "payment.completed")
    assert subscribes(["payment.completed"], "payment.completed")
    assert not subscribes(["payment.completed"], "basket.authenticated")
