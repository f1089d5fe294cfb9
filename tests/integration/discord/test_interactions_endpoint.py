"""The interactions endpoint (functions/storefront/discord_interactions.py) through its handler
under moto: Discord's Ed25519 signature checked with the application's public key (a bad one is
401), PING answered PONG, `/link` answered with an ephemeral message carrying the link."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from functions.storefront import discord_interactions
from tests.support.demo import DemoStore
from tests.support.discord_standin import StandInDiscord
from tests.support.invocation import Invoke, Response
from webstore import services as services_module
from webstore.repo.audit_log import Audit
from webstore.repo.discord import DiscordRepository
from webstore.services import get_services

from .test_consumer import ACCOUNT, START, connect

KEY = Ed25519PrivateKey.generate()
PUBLIC = KEY.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


@pytest.fixture
def with_key(aws: None, discord: StandInDiscord, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("WEBSTORE_DISCORD_API_URL", discord.base_url)
    services_module.reset()
    connect(discord)
    repo = DiscordRepository(get_services().table)
    app = repo.app(ACCOUNT)
    assert app is not None
    repo.save_app(ACCOUNT, app.model_copy(update={"public_key": PUBLIC}), Audit("o", "discord", "t", START))
    yield
    services_module.reset()


def interaction(
    invoke: Invoke, token: str, body: dict[str, object], *, signer: Ed25519PrivateKey = KEY
) -> Response:
    raw = json.dumps(body)
    stamp = str(int(time.time()))
    signature = signer.sign(stamp.encode() + raw.encode()).hex()
    return invoke(
        discord_interactions.handler,
        "POST",
        f"/discord/interactions/{token}",
        raw_body=raw,
        headers={
            "content-type": "application/json",
            "x-signature-ed25519": signature,
            "x-signature-timestamp": stamp,
        },
    )


def test_ping_is_answered_pong(demo: DemoStore, invoke: Invoke, with_key: None) -> None:
    answered = interaction(invoke, demo.token, {"type": 1})
    assert answered.status == 200, answered.body
    assert answered.json() == {"type": 1}


def test_link_answers_an_ephemeral_message_with_the_link(
    demo: DemoStore, invoke: Invoke, with_key: None
) -> None:
    started = time.monotonic()
    answered = interaction(invoke, demo.token, {"type": 2, "data": {"name": "link"}})
    assert time.monotonic() - started < 3  # Discord's limit
    assert answered.status == 200, answered.body
    reply = answered.json()
    assert reply["type"] == 4 and reply["data"]["flags"] == 64
    assert f"/discord/link?store={demo.token}" in reply["data"]["content"]


def test_a_bad_signature_is_401(demo: DemoStore, invoke: Invoke, with_key: None) -> None:
    forged = interaction(invoke, demo.token, {"type": 1}, signer=Ed25519PrivateKey.generate())
    assert forged.status == 401
    unsigned = invoke(
        discord_interactions.handler,
        "POST",
        f"/discord/interactions/{demo.token}",
        raw_body='{"type":1}',
        headers={"content-type": "application/json"},
    )
    assert unsigned.status == 401


def test_a_store_without_its_public_key_or_a_foreign_token_is_404(
    demo: DemoStore, invoke: Invoke, aws: None
) -> None:
    assert interaction(invoke, demo.token, {"type": 1}).status == 404  # Discord not connected
    assert interaction(invoke, "zz-not-a-store", {"type": 1}).status == 404


def test_an_unknown_interaction_is_a_clear_4xx(demo: DemoStore, invoke: Invoke, with_key: None) -> None:
    answered = interaction(invoke, demo.token, {"type": 2, "data": {"name": "other"}})
    assert answered.status in (400, 422) and "unsupported interaction" in answered.body
