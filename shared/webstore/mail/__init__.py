"""E-mail to players: the port (a message and a sender), its adapters, and the messages the
platform's domain events become (docs/mail.md).

The port is `MailSender.send(message) -> provider message id`; a message may carry attachments
(the payment's invoice). Adapters: `ses.SesSender` (Amazon SES v2 `SendEmail`, AWS: simple
content, or raw MIME when the message has attachments), `smtp.SmtpSender` (an SMTP relay,
`webstore serve --smtp`) and `smtp.FileSender` (`.eml` files in the local stack's state
directory). Nothing here imports the AWS SDK: the composition root (webstore.services) hands
the SES adapter its client.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from email.message import EmailMessage


class MailNotSent(Exception):
    """The provider refused or could not take the message (retried like a failed webhook)."""


@dataclass(frozen=True)
class Attachment:
    """A file the message carries (the payment's invoice): its name, MIME type and bytes."""

    filename: str
    content_type: str  # e.g. "text/html"
    data: bytes


@dataclass(frozen=True)
class Message:
    """One e-mail to one player. `idempotency_key` names it across retries (the (event, kind)
    claim); it travels as a header so a provider's log and the panel's log can be matched."""

    to: str
    from_address: str
    from_name: str
    subject: str
    html: str
    text: str
    idempotency_key: str
    reply_to: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    # Where a provider's later report (delivered, bounced, complained) belongs: `account`, and
    # for an event's message `event` and `kind` (SES message tags; webstore.mail.feedback).
    tags: dict[str, str] = field(default_factory=dict)
    attachments: tuple[Attachment, ...] = ()

    @property
    def sender(self) -> str:
        """`"Name" <address>` (RFC 5322, the name encoded when it is not ASCII)."""
        from email.utils import formataddr

        return formataddr((self.from_name, self.from_address)) if self.from_name else self.from_address

    def all_headers(self) -> dict[str, str]:
        """Transactional mail's headers: no auto-replies to it (RFC 3834), its key for matching."""
        return {
            "Auto-Submitted": "auto-generated",
            "X-Webstore-Message": self.idempotency_key,
            **self.headers,
        }

    def mime(self) -> EmailMessage:
        """The message as MIME (multipart/alternative: plain text, then HTML; with attachments,
        that inside multipart/mixed, then each file)."""
        from email.message import EmailMessage
        from email.utils import make_msgid

        mime = EmailMessage()
        mime["From"] = self.sender
        mime["To"] = self.to
        mime["Subject"] = self.subject
        if self.reply_to:
            mime["Reply-To"] = self.reply_to
        domain = self.from_address.rpartition("@")[2] or "localhost"
        mime["Message-ID"] = make_msgid(domain=domain)
        for name, value in self.all_headers().items():
            mime[name] = value
        mime.set_content(self.text)
        mime.add_alternative(self.html, subtype="html")
        for attachment in self.attachments:
            maintype, _, subtype = attachment.content_type.partition("/")
            mime.add_attachment(
                attachment.data, maintype=maintype, subtype=subtype, filename=attachment.filename
            )
        return mime


class MailSender(Protocol):
    def send(self, message: Message) -> str:
        """Hand `message` to the provider; its message id. MailNotSent when it is not taken."""
        ...


@dataclass(frozen=True)
class DomainStatus:
    """Whether the sender's domain may send, as the provider sees it: `state` is "ok" (verified,
    DKIM signing), "warn" (pending: its DNS records not seen yet), "todo" (not verified, failed,
    or no such identity) or "unknown" (the provider could not be asked: `detail` says why);
    `dkim_records` the CNAME records (name, value) still to publish, when the provider gives them."""

    domain: str
    state: str
    detail: str = ""
    dkim_records: tuple[tuple[str, str], ...] = ()


@runtime_checkable
class DomainChecker(Protocol):
    def domain_status(self, domain: str) -> DomainStatus:
        """The sending domain's status at the provider; "unknown" when it cannot be asked."""
        ...


def sender_domain(address: str) -> str:
    """The domain of a from-address (`store@mail.example.com` → `mail.example.com`)."""
    return address.rpartition("@")[2].strip().lower()


_PENDING = {"PENDING", "NOT_STARTED", "TEMPORARY_FAILURE"}


def identity_status(domain: str, identity: dict[str, Any]) -> DomainStatus:
    """An SES v2 `GetEmailIdentity` answer as a status: green when verified for sending and DKIM
    signs (`DkimAttributes.Status` SUCCESS), red when DKIM or the verification failed, amber while
    SES has not seen the DNS records (with the Easy DKIM tokens as the CNAMEs to publish), red
    for any other unverified identity."""
    dkim = identity.get("DkimAttributes") or {}
    dkim_status = str(dkim.get("Status", ""))
    verification = str(identity.get("VerificationStatus", ""))
    verified = bool(identity.get("VerifiedForSendingStatus"))
    if verified and dkim_status == "SUCCESS":
        return DomainStatus(domain, "ok", "verified, DKIM signing")
    if "FAILED" in (dkim_status, verification):
        return DomainStatus(domain, "todo", "failed: SES could not find the DKIM records in the domain's DNS")
    if dkim_status in _PENDING or verification in _PENDING:
        records = tuple(
            (f"{token}._domainkey.{domain}", f"{token}.dkim.amazonses.com")
            for token in dkim.get("Tokens") or ()
        )
        return DomainStatus(domain, "warn", "pending: DNS records not seen yet", records)
    return DomainStatus(domain, "todo", "not verified")


class NoMail:
    """No transport configured: nothing is sent (the consumer records it as skipped)."""

    def send(self, message: Message) -> str:
        raise MailNotSent("no mail transport is configured (WEBSTORE_MAIL_TRANSPORT)")
