"""The SES adapter: Amazon SES v2 `SendEmail` with simple content (subject, HTML, text, the
transactional headers), or raw content (the message's own MIME, `Message.mime`) when it has
attachments; the stage's configuration set (deliveries, bounces and complaints published to the
bus: infra/aws/mail.py) either way. `domain_status`: SES v2 `GetEmailIdentity` on the sending
domain (the panel's Go live page). The client is made by the composition root."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any

from webstore.mail import DomainStatus, MailNotSent, Message, identity_status


class SesSender:
    def __init__(self, client_factory: Callable[[], Any], *, configuration_set: str | None = None) -> None:
        self._client_factory = client_factory
        self.configuration_set = configuration_set

    @cached_property
    def client(self) -> Any:
        return self._client_factory()

    def send(self, message: Message) -> str:
        params: dict[str, Any] = {
            "FromEmailAddress": message.sender,
            "Destination": {"ToAddresses": [message.to]},
            "Content": {
                "Simple": {
                    "Subject": {"Data": message.subject, "Charset": "UTF-8"},
                    "Body": {
                        "Text": {"Data": message.text, "Charset": "UTF-8"},
                        "Html": {"Data": message.html, "Charset": "UTF-8"},
                    },
                    "Headers": [{"Name": k, "Value": v} for k, v in message.all_headers().items()],
                }
            },
            "EmailTags": [
                {"Name": "webstore-message", "Value": _tag(message.idempotency_key)},
                *({"Name": f"webstore-{k}", "Value": _tag(v)} for k, v in message.tags.items()),
            ],
        }
        if message.attachments:  # raw: the MIME carries recipient, subject, bodies, headers, files
            params["Content"] = {"Raw": {"Data": bytes(message.mime())}}
            del params["Destination"]  # the To header (given both, a recipient could get two)
        elif message.reply_to:
            params["ReplyToAddresses"] = [message.reply_to]
        if self.configuration_set:
            params["ConfigurationSetName"] = self.configuration_set
        try:
            response = self.client.send_email(**params)
        except Exception as error:  # botocore's ClientError, without importing botocore here
            code = getattr(error, "response", {}).get("Error", {}).get("Code", type(error).__name__)
            raise MailNotSent(f"SES refused the message ({code}): {error}") from error
        return str(response["MessageId"])

    def domain_status(self, domain: str) -> DomainStatus:
        """The domain identity as SES sees it (webstore.mail.identity_status); an identity SES
        does not have is red, any other refusal or failure to ask is "unknown" with its reason."""
        try:
            identity = self.client.get_email_identity(EmailIdentity=domain)
        except Exception as error:  # botocore's ClientError or a network error, as in send()
            code = getattr(error, "response", {}).get("Error", {}).get("Code", "")
            if code == "NotFoundException":
                return DomainStatus(domain, "todo", "the identity does not exist in this account and region")
            return DomainStatus(domain, "unknown", f"{code or type(error).__name__}: {error}")
        return identity_status(domain, identity)


def _tag(value: str) -> str:
    """A tag value SES accepts: letters, digits, `_` and `-` only."""
    return "".join(c if c.isalnum() or c in "_-" else "_" for c in value)[:256]
