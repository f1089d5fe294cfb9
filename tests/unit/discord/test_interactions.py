"""Interactions (webstore.discord.interactions): Ed25519 verification, PING → PONG, `/link`."""

from __future__ import annotations

import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from webstore.discord.interactions import answer, verify
from webstore.errors import Invalid, Unauthorized

KEY = Ed25519PrivateKey.generate()
PUBLIC = KEY.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
TIMESTAMP = "1780315200"


def signed(body: bytes, timestamp: str = TIMESTAMP) -> str:
    return KEY.sign(timestamp.encode() + body).hex()


def test_a_good_signature_verifies() -> None:
    body = json.dumps({"type": 1}).encode()
    verify(PUBLIC, signed(body), TIMESTAMP, body)


@pytest.mark.parametrize(
    ("signature", "timestamp", "body"),
    [
        (signed(b'{"type":1}'), TIMESTAMP, b'{"type":2}'),  # another body
        (signed(b'{"type":1}'), "1780315201", b'{"type":1}'),  # another timestamp
        ("00" * 64, TIMESTAMP, b'{"type":1}'),  # not a signature
        ("not hex", TIMESTAMP, b'{"type":1}'),
        ("", TIMESTAMP, b'{"type":1}'),
    ],
)
def test_a_bad_signature_is_unauthorized(signature: str, timestamp: str, body: bytes) -> None:
    with pytest.raises(Unauthorized):
        verify(PUBLIC, signature, timestamp, body)


def test_a_key_that_is_not_one_is_unauthorized_not_a_crash() -> None:
    with pytest.raises(Unauthorized):
        verify("abcd", signed(b"{}"), TIMESTAMP, b"{}")


def test_ping_is_answered_pong_and_link_with_an_ephemeral_link() -> None:
    assert answer({"type": 1}, "https://x") == {"type": 1}
    reply = answer({"type": 2, "data": {"name": "link"}}, "https://shop.example/link")
    assert reply["type"] == 4 and reply["data"]["flags"] == 64
    assert "https://shop.example/link" in reply["data"]["content"]
    with pytest.raises(Invalid):
        answer({"type": 2, "data": {"name": "other"}}, "https://x")
