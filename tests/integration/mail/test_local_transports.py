"""The local stack's mail adapters: an SMTP relay (aiosmtpd on 127.0.0.1, as `webstore serve
--smtp` uses one) and `.eml` files; and the consumer sending through the relay."""

from __future__ import annotations

import email
import socket
from collections.abc import Iterator
from email.message import Message as MimeMessage
from email.policy import default
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from tests.support.cancellation import buy_subscription
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore import services as services_module
from webstore.event_types import EventType
from webstore.mail import MailNotSent, Message
from webstore.mail.delivery import MailDispatcher, Outcome
from webstore.mail.smtp import FileSender, SmtpSender, parse_relay
from webstore.services import get_services

from .conftest import published


class Inbox:
    def __init__(self) -> None:
        self.messages: list[MimeMessage] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(email.message_from_bytes(envelope.content, policy=default))
        return "250 Message accepted for delivery"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def relay() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


def message(**changes: Any) -> Message:
    values: dict[str, Any] = {
        "to": "steve@example.com",
        "from_address": "store@mail.example.com",
        "from_name": "Crafty Café",
        "subject": "Your receipt from Crafty Café",
        "html": "<p>Thank you</p>",
        "text": "Thank you",
        "idempotency_key": "event-1.receipt",
        "reply_to": "help@example.com",
    }
    return Message(**{**values, **changes})


def test_smtp_relay_gets_a_transactional_multipart_message(relay: tuple[Inbox, int]) -> None:
    inbox, port = relay

    provider_id = SmtpSender("127.0.0.1", port).send(message())

    [got] = inbox.messages
    assert got["Message-ID"] == provider_id
    assert got["To"] == "steve@example.com"
    assert got["From"].addresses[0].display_name == "Crafty Café"
    assert got["Reply-To"] == "help@example.com"
    assert got["Auto-Submitted"] == "auto-generated"
    assert got["X-Webstore-Message"] == "event-1.receipt"
    assert got.get_content_type() == "multipart/alternative"
    parts = {part.get_content_type(): part.get_content().strip() for part in got.iter_parts()}
    assert parts == {"text/plain": "Thank you", "text/html": "<p>Thank you</p>"}


def test_an_unreachable_relay_is_a_failed_send() -> None:
    with pytest.raises(MailNotSent, match=r"127\.0\.0\.1"):
        SmtpSender("127.0.0.1", free_port(), timeout=2).send(message())


def test_files_are_eml_messages_in_the_directory(tmp_path: Path) -> None:
    FileSender(tmp_path / "mail").send(message(idempotency_key="../../escape"))

    [written] = (tmp_path / "mail").iterdir()
    assert written.suffix == ".eml" and written.parent == tmp_path / "mail"
    parsed = email.message_from_bytes(written.read_bytes(), policy=default)
    assert parsed["Subject"] == "Your receipt from Crafty Café"


@pytest.mark.parametrize("value", ["", "host:", ":25", "host:port", "host:70000"])
def test_a_bad_relay_is_refused_with_its_shape(value: str) -> None:
    with pytest.raises(ValueError, match="host:port"):
        parse_relay(value)


def test_the_consumer_sends_a_receipt_through_the_relay(
    invoke: Invoke, demo: DemoStore, relay: tuple[Inbox, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    inbox, port = relay
    monkeypatch.setenv("WEBSTORE_MAIL_TRANSPORT", "smtp")
    monkeypatch.setenv("WEBSTORE_MAIL_SMTP", f"127.0.0.1:{port}")
    services_module.reset()
    services_module.local_bus().published.clear()
    buy_subscription(invoke, demo, email="steve@example.com")
    [event] = published(EventType.PAYMENT_COMPLETED)

    dispatcher = MailDispatcher(get_services())
    assert dispatcher.dispatch(event).outcomes == {"receipt": Outcome.SENT}
    assert dispatcher.dispatch(event).outcomes == {"receipt": Outcome.ALREADY_SENT}

    [got] = inbox.messages
    assert got["To"] == "steve@example.com"
    assert event.subject["transaction_id"] in got.get_body(("plain",)).get_content()
    services_module.reset()
