"""Bounces and complaints through the real mail consumer (moto SES and SQS): SES's report, as
its configuration set puts it on EventBridge, marks the message and suppresses the address for
that store; nothing more is sent to it, and the log says so."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from functions.admin import get_mail, lift_mail_suppression
from tests.support.cancellation import buy_subscription
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.panel import signed_in
from webstore.domain.roles import Role
from webstore.event_types import EventType
from webstore.repo.audit_log import AuditLog
from webstore.repo.mail import MailRepository, MailStatus

from .conftest import REGION, MailQueue, published

EMAIL = "steve@example.com"
Sent = Callable[[], list[Any]]


def ses_report(detail_type: str, record: Any, account: int = 1, **detail: Any) -> dict[str, Any]:
    """SES's event as EventBridge delivers it (source aws.ses), tagged as the sender tags it."""
    tags = {
        "ses:configuration-set": ["webstore-test-mail"],
        "webstore-account": [str(account)],
        "webstore-event": [record.event_id],
        "webstore-kind": [record.kind],
    }
    return {
        "version": "0",
        "id": "7b7d3a6e-0000-0000-0000-000000000001",
        "detail-type": detail_type,
        "source": "aws.ses",
        "account": "123456789012",
        "time": "2026-06-01T12:00:00Z",
        "region": REGION,
        "resources": [],
        "detail": {
            "eventType": detail_type.removeprefix("Email "),
            "mail": {"messageId": record.provider_id, "destination": [EMAIL], "tags": tags},
            **detail,
        },
    }


def permanent_bounce() -> dict[str, Any]:
    return {
        "bounce": {
            "bounceType": "Permanent",
            "bounceSubType": "General",
            "bouncedRecipients": [{"emailAddress": EMAIL, "diagnosticCode": "smtp; 550 5.1.1 no such user"}],
        }
    }


def test_a_permanent_bounce_suppresses_the_address_and_no_more_mail_goes_to_it(
    invoke: Invoke, demo: DemoStore, ses: Sent, mail_queue: MailQueue
) -> None:
    buy_subscription(invoke, demo, email=EMAIL)
    mail_queue.deliver(published(EventType.PAYMENT_COMPLETED))
    repo = MailRepository(demo.table)
    [record] = repo.log(1)
    assert record.status is MailStatus.SENT and len(ses()) == 1

    response = mail_queue.deliver_bodies([ses_report("Email Bounced", record, **permanent_bounce())])

    assert response == {"batchItemFailures": []}
    [record] = repo.log(1)
    assert record.status is MailStatus.BOUNCED and "550 5.1.1" in record.error
    [suppression] = repo.suppressions(1)
    assert (suppression.address, suppression.reason) == (EMAIL, "bounced")
    assert repo.suppressions(2) == []  # another store still sends to it

    # The same player buys again: the receipt is not sent, and the log shows why.
    local_published = published(EventType.PAYMENT_COMPLETED)
    buy_subscription(invoke, demo, username="Steve", email=EMAIL)
    second = [e for e in published(EventType.PAYMENT_COMPLETED) if e not in local_published]
    assert mail_queue.deliver(second) == {"batchItemFailures": []}
    assert mail_queue.deliver(second) == {"batchItemFailures": []}  # redelivered: still done
    assert len(ses()) == 1
    newest = repo.log(1)[0]
    assert newest.status is MailStatus.SUPPRESSED and "bounced" in newest.error


def test_delivered_complained_and_transient_bounces(
    invoke: Invoke, demo: DemoStore, ses: Sent, mail_queue: MailQueue
) -> None:
    buy_subscription(invoke, demo, email=EMAIL)
    mail_queue.deliver(published(EventType.PAYMENT_COMPLETED))
    repo = MailRepository(demo.table)
    [record] = repo.log(1)

    transient = {"bounce": {"bounceType": "Transient", "bouncedRecipients": [{"emailAddress": EMAIL}]}}
    mail_queue.deliver_bodies([ses_report("Email Delivered", record, delivery={"recipients": [EMAIL]})])
    assert repo.log(1)[0].status is MailStatus.DELIVERED
    mail_queue.deliver_bodies([ses_report("Email Bounced", record, **transient)])
    assert repo.log(1)[0].status is MailStatus.BOUNCED
    assert repo.suppressions(1) == []  # a full mailbox is not the end of an address

    complaint = {"complaint": {"complainedRecipients": [{"emailAddress": EMAIL}]}}
    mail_queue.deliver_bodies([ses_report("Email Complained", record, **complaint)])
    assert repo.log(1)[0].status is MailStatus.COMPLAINED
    assert [s.reason for s in repo.suppressions(1)] == ["complained"]

    # A report of another sender's message (no account tag) changes nothing.
    untagged = ses_report("Email Complained", record, **complaint)
    untagged["detail"]["mail"]["tags"] = {}
    assert mail_queue.deliver_bodies([untagged]) == {"batchItemFailures": []}


def test_the_panel_lists_suppressed_addresses_and_the_owner_lifts_one(
    invoke: Invoke, demo: DemoStore, ses: Sent, mail_queue: MailQueue
) -> None:
    buy_subscription(invoke, demo, email=EMAIL)
    mail_queue.deliver(published(EventType.PAYMENT_COMPLETED))
    repo = MailRepository(demo.table)
    [record] = repo.log(1)
    mail_queue.deliver_bodies([ses_report("Email Bounced", record, **permanent_bounce())])
    owner = signed_in(Role.OWNER, email="mail-owner@example.com")

    page = owner.get(get_mail.handler, "/mail")

    assert page.status == 200, page.body
    suppressed = page.body.split('id="mail-suppressions"', 1)[1]
    assert EMAIL in suppressed and "550 5.1.1" in suppressed
    assert '<td class="status-bounced">bounced</td>' in page.body

    lifted = owner.post(lift_mail_suppression.handler, "/mail/suppressions/lift", {"address": EMAIL})
    assert lifted.status == 303, lifted.body
    assert repo.suppressions(1) == []
    entry = AuditLog(demo.table).page(1).entries[0]
    assert (entry.action, entry.summary) == ("mail.suppression.lifted", EMAIL)
    again = owner.post(lift_mail_suppression.handler, "/mail/suppressions/lift", {"address": EMAIL})
    assert again.status == 404, again.body
    reader = signed_in(Role.READONLY)
    assert (
        reader.post(lift_mail_suppression.handler, "/mail/suppressions/lift", {"address": EMAIL}).status
        == 403
    )
