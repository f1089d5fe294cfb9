"""The local stack's adapters: an SMTP relay (`webstore serve --smtp host:port`) and `.eml`
files in the state directory (the default: nothing leaves the machine)."""

from __future__ import annotations

import re
import smtplib
from datetime import UTC, datetime
from pathlib import Path

from webstore.mail import MailNotSent, Message

SMTP_TIMEOUT_SECONDS = 10


class SmtpSender:
    """Plain SMTP to a relay (MailHog, Mailpit, aiosmtpd, a company relay); no authentication."""

    def __init__(self, host: str, port: int, *, timeout: float = SMTP_TIMEOUT_SECONDS) -> None:
        self.host = host
        self.port = port
        self.timeout = timeout

    def send(self, message: Message) -> str:
        mime = message.mime()
        try:
            with smtplib.SMTP(self.host, self.port, timeout=self.timeout) as smtp:
                smtp.send_message(mime)
        except (OSError, smtplib.SMTPException) as error:
            raise MailNotSent(f"SMTP relay {self.host}:{self.port}: {error}") from error
        return str(mime["Message-ID"])


def parse_relay(value: str) -> tuple[str, int]:
    """`host:port` (port 25 when left out); ValueError naming the problem."""
    host, _, port = value.rpartition(":") if ":" in value else (value, "", "25")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--smtp {value!r}: expected host:port, e.g. 127.0.0.1:1025")
    return host, int(port)


_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


class FileSender:
    """Each message as an `.eml` file (opens in any mail client) under `directory`."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def send(self, message: Message) -> str:
        mime = message.mime()
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
        path = self.directory / f"{stamp}-{_SAFE.sub('_', message.idempotency_key)[:120]}.eml"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            path.write_bytes(bytes(mime))
        except OSError as error:
            raise MailNotSent(f"could not write {path}: {error}") from error
        return str(mime["Message-ID"])
