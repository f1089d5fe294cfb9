"""The mail consumer through its real handler: a checkout through the handlers writes the events,
the SQS-fed consumer sends through SES (moto) exactly once per (event, message)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
import time_machine

from tests.support.cancellation import buy_subscription
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore.event_types import EventType
from webstore.mail.delivery import MailDispatcher, Outcome
from webstore.repo.audit_log import Audit
from webstore.repo.mail import MailRepository, MailSettings, MailStatus
from webstore.repo.store import StoreRepository
from webstore.services import get_services

from .conftest import REGION, SENDER_DOMAIN, MailQueue, published

EMAIL = "steve@example.com"

Sent = Callable[[], list[Any]]


def test_a_paid_subscription_sends_one_receipt_with_its_manage_link(
    invoke: Invoke, demo: DemoStore, ses: Sent, mail_queue: MailQueue
) -> None:
    bought = buy_subscription(invoke, demo, email=EMAIL)
    events = published()
    assert EventType.PAYMENT_COMPLETED in [e.type for e in events]

    response = mail_queue.deliver(events)

    assert response == {"batchItemFailures": []}
    [message] = ses()
    store = StoreRepository(demo.table).store(1)
    assert message.destinations["ToAddresses"] == [EMAIL]
    assert message.subject == f"Your receipt from {store.name}"
    assert message.source.endswith(f"<store@{SENDER_DOMAIN}>")
    assert bought.reference in message.body  # the transaction id
    assert "https://shop.test/subscriptions/" in message.body  # the manage link
    [record] = MailRepository(demo.table).log(1)
    assert (record.status, record.kind, record.recipient) == (MailStatus.SENT, "receipt", EMAIL)
    assert record.provider_id and record.subject_line == message.subject

    # The same events again (a redelivery): nothing is sent twice.
    assert mail_queue.deliver(events) == {"batchItemFailures": []}
    assert len(ses()) == 1


def test_no_address_no_mail(invoke: Invoke, demo: DemoStore, ses: Sent, mail_queue: MailQueue) -> None:
    buy_subscription(invoke, demo)

    assert mail_queue.deliver(published()) == {"batchItemFailures": []}

    assert ses() == []
    assert MailRepository(demo.table).log(1) == []


def test_a_message_switched_off_is_not_sent(
    invoke: Invoke, demo: DemoStore, ses: Sent, mail_queue: MailQueue
) -> None:
    audit = Audit("staff:owner@example.com", "mail.settings", "test", datetime.now(UTC))
    MailRepository(demo.table).save_settings(1, MailSettings(disabled=["receipt"]), audit)
    buy_subscription(invoke, demo, email=EMAIL)

    mail_queue.deliver(published())

    assert ses() == []


def test_a_refused_message_is_retried_and_logged_then_sent_once(
    invoke: Invoke, demo: DemoStore, ses: Sent, mail_queue: MailQueue
) -> None:
    sesv2 = boto3.client("sesv2", region_name=REGION)
    sesv2.delete_email_identity(EmailIdentity=SENDER_DOMAIN)  # SES refuses an unverified sender
    buy_subscription(invoke, demo, email=EMAIL)
    events = published(EventType.PAYMENT_COMPLETED)

    response = mail_queue.deliver(events)

    assert len(response["batchItemFailures"]) == 1  # the record is retried by SQS
    [record] = MailRepository(demo.table).log(1)
    assert record.status is MailStatus.FAILED
    assert "MessageRejected" in record.error  # the identity is not verified
    assert ses() == []

    sesv2.create_email_identity(EmailIdentity=SENDER_DOMAIN)
    assert mail_queue.deliver(events) == {"batchItemFailures": []}
    assert len(ses()) == 1
    [record] = MailRepository(demo.table).log(1)
    assert (record.status, record.attempts) == (MailStatus.SENT, 2)


def test_a_sender_that_stopped_mid_send_is_shown_unknown_and_sent_again_only_by_hand(
    invoke: Invoke, demo: DemoStore, ses: Sent
) -> None:
    buy_subscription(invoke, demo, email=EMAIL)
    [event] = published(EventType.PAYMENT_COMPLETED)
    services = get_services()
    repo = MailRepository(demo.table)
    # A sender claimed the receipt and stopped before it recorded the outcome.
    repo.claim(
        1,
        event.id,
        "receipt",
        services.now(),
        event_type=event.type,
        event_date=event.date,
        event_subject=event.subject,
        recipient=EMAIL,
    )
    dispatcher = MailDispatcher(services)
    assert dispatcher.dispatch(event).outcomes == {"receipt": Outcome.BUSY}  # its lease is live

    with time_machine.travel(services.now() + timedelta(minutes=5), tick=False):
        result = dispatcher.dispatch(event)
        assert result.outcomes == {"receipt": Outcome.UNKNOWN} and not result.retry_needed
        assert dispatcher.dispatch(event).outcomes == {"receipt": Outcome.UNKNOWN}
        assert ses() == []
        [record] = repo.log(1)
        assert record.status is MailStatus.UNKNOWN and record.can_resend

        record = dispatcher.resend(1, event.id, "receipt")  # the owner's "Send again"

    assert record.status is MailStatus.SENT
    assert len(ses()) == 1


@pytest.mark.parametrize("kind", ["receipt"])
def test_player_typed_values_are_escaped_in_the_html(
    invoke: Invoke, demo: DemoStore, ses: Sent, mail_queue: MailQueue, kind: str
) -> None:
    buy_subscription(invoke, demo, email=EMAIL)
    [event] = published(EventType.PAYMENT_COMPLETED)
    products = [{**p, "name": "<script>alert(1)</script>"} for p in event.subject["products"]]
    hostile = type(event)(
        type=event.type,
        account_id=event.account_id,
        subject={**event.subject, "products": products},
        id="11111111-2222-3333-4444-555555555555",
        date=event.date,
    )

    mail_queue.deliver([hostile])

    [message] = ses()
    assert "<script>" not in message.body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in message.body
