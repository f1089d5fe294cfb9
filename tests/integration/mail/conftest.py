"""The mail consumer's tests: AWS under moto (table, SES, the mail buffer queue), a real
checkout through the handlers, and the consumer fed the events that checkout wrote."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email import message_from_string
from email.message import EmailMessage
from email.policy import default
from typing import Any

import boto3
import pytest
from moto.core import DEFAULT_ACCOUNT_ID
from moto.ses.models import ses_backends

from functions.events import send_mail
from tests.support.lambda_events import LambdaContext
from webstore import services as services_module
from webstore.events import SOURCE, DomainEvent
from webstore.services import local_bus

REGION = "us-east-1"
SENDER_DOMAIN = "mail.example.com"
MAIL_FROM = f"store@{SENDER_DOMAIN}"


@pytest.fixture
def ses(aws: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], list[Any]]]:
    """Mail goes through SES (moto), from a verified domain; returns the sent messages."""
    monkeypatch.setenv("WEBSTORE_MAIL_TRANSPORT", "ses")
    monkeypatch.setenv("WEBSTORE_MAIL_FROM", MAIL_FROM)
    services_module.reset()
    boto3.client("sesv2", region_name=REGION).create_email_identity(EmailIdentity=SENDER_DOMAIN)
    local_bus().published.clear()
    yield lambda: [as_sent(m) for m in ses_backends[DEFAULT_ACCOUNT_ID][REGION].sent_messages]
    services_module.reset()


@dataclass
class RawSent:
    """A raw message moto's SES kept (one with attachments), read as its simple messages are:
    `subject`, `body` (the HTML part), `destinations`; `mime` the parsed message."""

    id: str
    source: str
    subject: str
    body: str
    destinations: dict[str, list[str]]
    mime: EmailMessage


def as_sent(message: Any) -> Any:
    raw = getattr(message, "raw_data", None)
    if raw is None:
        return message
    mime = message_from_string(raw, policy=default)
    assert isinstance(mime, EmailMessage)
    html = mime.get_body(("html",))
    return RawSent(
        id=message.id,
        source=message.source,
        subject=str(mime["Subject"]),
        body=html.get_content() if html is not None else "",
        destinations={"ToAddresses": list(message.destinations)},
        mime=mime,
    )


@dataclass
class MailQueue:
    url: str
    arn: str

    def deliver(self, events: list[DomainEvent]) -> dict[str, Any]:
        """Put each event on the queue as the bus rule does, receive them, run the consumer."""
        return self.deliver_bodies([envelope(event) for event in events])

    def deliver_bodies(self, bodies: list[dict[str, Any]]) -> dict[str, Any]:
        """Put each EventBridge event on the queue, receive them, run the consumer."""
        sqs = boto3.client("sqs", region_name=REGION)
        for body in bodies:
            sqs.send_message(QueueUrl=self.url, MessageBody=json.dumps(body))
        messages = sqs.receive_message(
            QueueUrl=self.url, MaxNumberOfMessages=10, AttributeNames=["All"], WaitTimeSeconds=0
        ).get("Messages", [])
        records = [
            {
                "messageId": m["MessageId"],
                "receiptHandle": m["ReceiptHandle"],
                "body": m["Body"],
                "attributes": m["Attributes"],
                "messageAttributes": {},
                "md5OfBody": m["MD5OfBody"],
                "eventSource": "aws:sqs",
                "eventSourceARN": self.arn,
                "awsRegion": REGION,
            }
            for m in messages
        ]
        response: dict[str, Any] = send_mail.handler({"Records": records}, LambdaContext())
        return response


def envelope(event: DomainEvent) -> dict[str, Any]:
    return {
        "version": "0",
        "id": f"eb-{event.id}",
        "detail-type": event.type,
        "source": SOURCE,
        "account": "123456789012",
        "time": event.date,
        "region": REGION,
        "resources": [],
        "detail": event.detail(),
    }


@pytest.fixture
def mail_queue(aws: None) -> MailQueue:
    sqs = boto3.client("sqs", region_name=REGION)
    url = sqs.create_queue(QueueName="mail-buffer", Attributes={"VisibilityTimeout": "0"})["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return MailQueue(url, arn)


def published(*types: str) -> list[DomainEvent]:
    return [e for e in local_bus().published if not types or e.type in types]
