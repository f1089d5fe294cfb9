"""Panel → E-mails through the real handlers under moto: the settings form (CSRF, 303, a
refusal with what was typed), read-only roles, the message log and "Send again" (moto's SES)."""

from __future__ import annotations

import boto3

from functions.admin import get_mail, resend_mail, save_mail_settings
from tests.support.cancellation import buy_subscription
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.panel import signed_in
from webstore.domain.roles import Role
from webstore.event_types import EventType
from webstore.repo.audit_log import AuditLog
from webstore.repo.mail import MailRepository, MailStatus

from .conftest import REGION, SENDER_DOMAIN, MailQueue, published
from .test_send_mail import EMAIL, Sent


def test_the_owner_turns_a_message_off_and_names_the_sender(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER, email="mail-owner@example.com")
    page = owner.get(get_mail.handler, "/mail")
    assert page.status == 200, page.body
    assert 'name="on_receipt" value="1" checked' in page.body
    fields = {"on_refund": "1", "from_name": "Crafty Support", "reply_to": "help@example.com"}

    saved = owner.post(save_mail_settings.handler, "/mail/settings", fields)

    assert saved.status == 303, saved.body
    assert saved.headers["location"].startswith("/mail?done=")
    settings = MailRepository(demo.table).settings(1)
    assert (settings.from_name, settings.reply_to) == ("Crafty Support", "help@example.com")
    assert not settings.enabled("receipt") and settings.enabled("refund")
    entry = AuditLog(demo.table).page(1).entries[0]  # the newest
    assert (entry.actor, entry.action) == ("staff:mail-owner@example.com", "mail.settings")
    assert 'from_name: "" → "Crafty Support"' in entry.summary


def test_a_bad_reply_to_is_refused_in_the_form_with_what_was_typed(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    owner.get(get_mail.handler, "/mail")

    refused = owner.post(
        save_mail_settings.handler,
        "/mail/settings",
        {"from_name": "<b>Crafty</b>", "reply_to": "not an address"},
    )

    assert refused.status == 422, refused.body
    assert "From name" in refused.body
    assert MailRepository(demo.table).settings(1).from_name == ""


def test_readonly_sees_no_forms_and_may_not_post(demo: DemoStore) -> None:
    reader = signed_in(Role.READONLY)
    page = reader.get(get_mail.handler, "/mail")
    assert page.status == 200 and "<form" not in page.body.split("<h1>E-mails</h1>", 1)[1]

    refused = reader.post(save_mail_settings.handler, "/mail/settings", {"from_name": "x"})

    assert refused.status == 403


def test_the_log_shows_a_failed_message_and_send_again_sends_it(
    invoke: Invoke, demo: DemoStore, ses: Sent, mail_queue: MailQueue
) -> None:
    sesv2 = boto3.client("sesv2", region_name=REGION)
    sesv2.delete_email_identity(EmailIdentity=SENDER_DOMAIN)
    buy_subscription(invoke, demo, email=EMAIL)
    [event] = published(EventType.PAYMENT_COMPLETED)
    mail_queue.deliver([event])
    owner = signed_in(Role.OWNER)
    page = owner.get(get_mail.handler, "/mail")
    assert EMAIL in page.body and "status-failed" in page.body and "Send again" in page.body
    sesv2.create_email_identity(EmailIdentity=SENDER_DOMAIN)

    sent = owner.post(resend_mail.handler, f"/mail/messages/{event.id}/receipt/resend", {})

    assert sent.status == 303, sent.body
    assert len(ses()) == 1
    record = MailRepository(demo.table).record(1, event.id, "receipt")
    assert record is not None and record.status is MailStatus.SENT
    # Sent now: there is nothing to send again.
    again = owner.post(resend_mail.handler, f"/mail/messages/{event.id}/receipt/resend", {})
    assert again.status == 404
    assert len(ses()) == 1
