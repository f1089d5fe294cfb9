"""Panel → E-mails → a message's wording, through the real handlers under moto: the editor, save
(checked: syntax error and unknown variable refused with the line, nothing saved), preview,
"send me a test" (moto's SES), reset, read-only roles; and the consumer sending the owner's
template, with a player-typed value escaped (stored XSS) and the house's template when the
owner's fails on the event's data."""

from __future__ import annotations

import html

import pytest

from functions.admin import (
    get_mail,
    get_mail_template,
    preview_mail_template,
    reset_mail_template,
    save_mail_template,
    send_test_mail,
)
from tests.support.cancellation import buy_subscription
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.panel import signed_in
from webstore.domain.roles import Role
from webstore.event_types import EventType
from webstore.events import DomainEvent
from webstore.repo.audit_log import AuditLog
from webstore.repo.mail import MailRepository

from .conftest import MailQueue, published
from .test_send_mail import EMAIL, Sent

OWNER_EMAIL = "wording-owner@example.com"
GOOD = {
    "subject": "Thanks from {{ store.name }}!",
    "html": "<h1>Cheers {{ payment.username }}</h1>\n<p>You paid {{ payment.total }}.</p>"
    '\n{% if invoice %}<p><a href="{{ invoice.url }}">Invoice {{ invoice.number }}</a></p>{% endif %}',
    "text": "",
}
PATH = "/mail/templates/receipt"


def test_the_editor_starts_from_the_house_wording_and_saves_the_owners(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER, email=OWNER_EMAIL)
    page = owner.get(get_mail_template.handler, PATH)
    assert page.status == 200, page.body
    assert "The default message is sent" in page.body
    assert "{{ payment.transaction_id }}" in html.unescape(page.body)  # the starter
    assert "tbx-sample-12345" in page.body  # the variables with sample values

    saved = owner.post(save_mail_template.handler, PATH, GOOD)

    assert saved.status == 303, saved.body
    assert saved.headers["location"].startswith(f"{PATH}?done=")
    stored = MailRepository(demo.table).template(1, "receipt")
    assert stored is not None and (stored.subject, stored.html, stored.version) == (
        GOOD["subject"],
        GOOD["html"],
        1,
    )
    entry = AuditLog(demo.table).page(1).entries[0]
    assert (entry.actor, entry.action) == (f"staff:{OWNER_EMAIL}", "mail.template")
    again = owner.get(get_mail_template.handler, PATH)
    assert "Your own template (version 1" in again.body
    assert "(your own)" in owner.get(get_mail.handler, "/mail").body
    assert owner.post(save_mail_template.handler, PATH, GOOD).status == 303
    stored = MailRepository(demo.table).template(1, "receipt")
    assert stored is not None and stored.version == 2


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({**GOOD, "html": "<p>Hi</p>\n<p>{% if payment.total %}</p>"}, "HTML body, line 2"),
        (
            {**GOOD, "html": "<p>Hi</p>\n{% if payment.total == 0 %}\n{{ secret_key }}\n{% endif %}"},
            "HTML body, line 3: unknown variable 'secret_key'",
        ),
        ({**GOOD, "subject": "Hi {{ player }}"}, "Subject, line 1: unknown variable 'player'"),
        ({**GOOD, "text": "Paid\n{{ payment.nope }}"}, "Plain text, line 2"),
        ({**GOOD, "subject": "  "}, "Subject: write"),
        ({**GOOD, "html": ""}, "HTML body: write"),
        ({**GOOD, "html": "{{ payment.__class__ }}"}, "HTML body"),
        ({**GOOD, "html": "x" * 50_001}, "at most 50,000"),
    ],
)
def test_a_template_that_cannot_be_used_is_refused_with_its_line_and_not_saved(
    demo: DemoStore, fields: dict[str, str], said: str
) -> None:
    owner = signed_in(Role.OWNER)

    refused = owner.post(save_mail_template.handler, PATH, fields)

    assert refused.status == 422, refused.body
    assert said in html.unescape(refused.body)
    assert MailRepository(demo.table).template(1, "receipt") is None
    if len(fields["html"]) < 1000:  # what was typed is shown again
        assert fields["html"] in html.unescape(refused.body)


def test_an_unknown_message_is_not_found(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    assert owner.get(get_mail_template.handler, "/mail/templates/newsletter").status == 404
    assert owner.post(save_mail_template.handler, "/mail/templates/newsletter", GOOD).status == 404


def test_preview_shows_the_typed_template_with_sample_data_in_a_sandboxed_frame(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)

    shown = owner.post(preview_mail_template.handler, f"{PATH}/preview", GOOD)

    assert shown.status == 200, shown.body
    assert 'id="preview-subject">Thanks from ' in shown.body
    assert 'sandbox="" srcdoc="' in shown.body
    frame = html.unescape(shown.body.split('srcdoc="', 1)[1].split('"', 1)[0])
    assert "<h1>Cheers Steve</h1>" in frame and "$15.39 USD" in frame
    assert "INV-2026-0001" in frame
    text = html.unescape(shown.body.split('id="preview-text">', 1)[1].split("</pre>", 1)[0])
    assert "Cheers Steve" in text and "Invoice INV-2026-0001 (https://" in text
    assert MailRepository(demo.table).template(1, "receipt") is None  # nothing saved

    bad = owner.post(preview_mail_template.handler, f"{PATH}/preview", {**GOOD, "html": "{{ oops"})
    assert bad.status == 422 and "HTML body, line 1" in bad.body


def test_send_me_a_test_mails_the_signed_in_owner_through_the_mail_port(demo: DemoStore, ses: Sent) -> None:
    owner = signed_in(Role.OWNER, email=OWNER_EMAIL)

    sent = owner.post(send_test_mail.handler, f"{PATH}/test", GOOD)

    assert sent.status == 303, sent.body
    [message] = ses()
    assert message.destinations["ToAddresses"] == [OWNER_EMAIL]
    assert message.subject.startswith("[Test] Thanks from ")
    assert "Cheers Steve" in message.body
    assert MailRepository(demo.table).template(1, "receipt") is None

    refused = owner.post(send_test_mail.handler, f"{PATH}/test", {**GOOD, "subject": "{{ nope }}"})
    assert refused.status == 422 and "unknown variable" in refused.body
    assert len(ses()) == 1


def test_reset_goes_back_to_the_default(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    owner.post(save_mail_template.handler, PATH, GOOD)

    reset = owner.post(reset_mail_template.handler, f"{PATH}/reset", {})

    assert reset.status == 303, reset.body
    assert MailRepository(demo.table).template(1, "receipt") is None
    assert "The default message is sent" in owner.get(get_mail_template.handler, PATH).body


def test_readonly_sees_the_wording_but_no_form_and_may_not_post(demo: DemoStore) -> None:
    reader = signed_in(Role.READONLY)
    page = reader.get(get_mail_template.handler, PATH)
    assert page.status == 200 and "<form" not in page.body.split("<h1>E-mail: Receipt</h1>", 1)[1]
    for handler, path in (
        (save_mail_template.handler, PATH),
        (preview_mail_template.handler, f"{PATH}/preview"),
        (send_test_mail.handler, f"{PATH}/test"),
        (reset_mail_template.handler, f"{PATH}/reset"),
    ):
        assert reader.post(handler, path, GOOD).status == 403


def test_the_consumer_sends_the_owners_wording_with_player_values_escaped(
    invoke: Invoke, demo: DemoStore, ses: Sent, mail_queue: MailQueue
) -> None:
    owner = signed_in(Role.OWNER)
    assert owner.post(save_mail_template.handler, PATH, GOOD).status == 303
    buy_subscription(invoke, demo, email=EMAIL)
    [event] = published(EventType.PAYMENT_COMPLETED)
    # What a player typed, as the event could carry it (a name from an offline-mode store).
    subject = {**event.subject, "customer": {**event.subject["customer"]}}
    subject["customer"]["username"] = {"username": '<img src=x onerror="alert(1)">'}
    crafted = DomainEvent(type=event.type, account_id=1, subject=subject, id=event.id, date=event.date)

    assert mail_queue.deliver([crafted]) == {"batchItemFailures": []}

    [message] = ses()
    assert message.subject.startswith("Thanks from ")
    assert "<h1>Cheers &lt;img src=x onerror=&#34;alert(1)&#34;&gt;</h1>" in message.body
    assert "<img src=x" not in message.body


def test_a_template_failing_on_the_events_data_sends_the_house_message(
    invoke: Invoke, demo: DemoStore, ses: Sent, mail_queue: MailQueue
) -> None:
    owner = signed_in(Role.OWNER)
    # Saved fine (the sample has lines); an event's payment can have an empty line list.
    fragile = {**GOOD, "html": "<p>First: {{ payment.lines[0].name }}</p>"}
    assert owner.post(save_mail_template.handler, PATH, fragile).status == 303
    buy_subscription(invoke, demo, email=EMAIL)
    [event] = published(EventType.PAYMENT_COMPLETED)
    crafted = DomainEvent(
        type=event.type, account_id=1, subject={**event.subject, "products": []}, id=event.id, date=event.date
    )

    assert mail_queue.deliver([crafted]) == {"batchItemFailures": []}

    [message] = ses()
    assert message.subject.startswith("Your receipt from ")
