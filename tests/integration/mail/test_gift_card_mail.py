"""A gift card issued through the operator interface with an `email`, or from the panel's new-card
form with "Send it to": its delivery event is in the outbox (written with the card), and the mail
consumer sends "you received a gift card" (code, balance, the store's link) once, through SES
(moto); without an address nothing is sent; a bad address (or a message with none) is refused
and no card is made; the recipient's note is escaped."""

from __future__ import annotations

import html
import re

from functions.admin import get_catalog_element, save_catalog_element
from functions.operator import create_gift_card, get_gift_cards
from tests.integration.operator.support import secret_headers
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke, Response
from tests.support.panel import PanelClient, signed_in
from webstore.domain.roles import Role
from webstore.event_types import GIFT_CARD_DELIVERY
from webstore.repo.catalog_edits import CatalogEdits
from webstore.repo.mail import MailRepository, MailStatus

from .conftest import MailQueue, published
from .test_send_mail import Sent

TO = "alex@example.com"


def _create(invoke: Invoke, demo: DemoStore, **body: object) -> Response:
    return invoke(
        create_gift_card.handler, "POST", "/gift-cards", body=body, headers=secret_headers(demo.server_secret)
    )


def test_a_card_issued_for_an_address_is_mailed_once(
    invoke: Invoke, demo: DemoStore, ses: Sent, mail_queue: MailQueue
) -> None:
    created = _create(invoke, demo, amount=25, note="prize", email=TO, message="Happy <b>birthday</b>!")
    assert created.status == 200, created.body
    card = created.json()["data"]
    assert set(card) == {"id", "code", "balance", "note", "void", "created_at", "expires_at"}  # unchanged
    [event] = published(GIFT_CARD_DELIVERY)
    assert event.endpoints == () and event.subject["code"] == card["code"]

    assert mail_queue.deliver([event]) == {"batchItemFailures": []}
    assert mail_queue.deliver([event]) == {"batchItemFailures": []}  # a redelivery

    [message] = ses()
    assert message.destinations["ToAddresses"] == [TO]
    assert message.subject.startswith("You received a ") and message.subject.endswith(" gift card")
    assert card["code"] in message.body
    assert "$25.00 USD" in message.body
    assert "Happy &lt;b&gt;birthday&lt;/b&gt;!" in message.body and "<b>birthday" not in message.body
    [record] = MailRepository(demo.table).log(1)
    assert (record.kind, record.status, record.recipient) == ("gift_card", MailStatus.SENT, TO)


def test_without_an_address_no_mail(
    invoke: Invoke, demo: DemoStore, ses: Sent, mail_queue: MailQueue
) -> None:
    assert _create(invoke, demo, amount=5).status == 200
    assert published(GIFT_CARD_DELIVERY) == []
    assert ses() == []


def test_a_bad_address_or_a_message_without_one_is_refused_and_no_card_made(
    invoke: Invoke, demo: DemoStore
) -> None:
    before = invoke(get_gift_cards.handler, "GET", "/gift-cards", headers=secret_headers(demo.server_secret))
    for body, field in (
        ({"amount": 5, "email": "not an address"}, "email"),
        ({"amount": 5, "message": "hi"}, "message"),
    ):
        refused = _create(invoke, demo, **body)
        assert refused.status == 422, refused.body
        assert field in html.unescape(refused.body)
    after = invoke(get_gift_cards.handler, "GET", "/gift-cards", headers=secret_headers(demo.server_secret))
    assert len(after.json()["data"]) == len(before.json()["data"])
    assert published(GIFT_CARD_DELIVERY) == []


# --- the panel's new-card form ------------------------------------------------------------------


def _panel_card(owner: PanelClient, **fields: str) -> Response:
    form = owner.get(get_catalog_element.handler, "/catalog/gift-cards/new")
    assert form.status == 200, form.body
    assert 'name="email"' in form.body and 'name="message"' in form.body
    found = re.search(r'name="revision" value="([0-9]+)"', form.body)
    assert found, "the form has no revision"
    typed = {"revision": found.group(1), "card_number": "PANEL-0001", "balance": "15", **fields}
    return owner.post(save_catalog_element.handler, "/catalog/gift-cards/new", typed)


def test_a_card_made_in_the_panel_for_an_address_is_mailed_once(
    demo: DemoStore, ses: Sent, mail_queue: MailQueue
) -> None:
    saved = _panel_card(signed_in(Role.OWNER), email=TO, message="Thanks for <i>helping</i>")
    assert saved.status == 303, saved.body
    card = next(c for c in CatalogEdits(demo.table).gift_cards(1) if c.card_number == "PANEL-0001")
    assert saved.headers["location"] == f"/catalog/gift-cards/{card.id}?done=Saved"
    [event] = published(GIFT_CARD_DELIVERY)
    assert event.endpoints == () and event.subject["code"] == "PANEL-0001"
    assert (event.subject["id"], event.subject["email"]) == (card.id, TO)

    assert mail_queue.deliver([event]) == {"batchItemFailures": []}
    assert mail_queue.deliver([event]) == {"batchItemFailures": []}  # a redelivery

    [message] = ses()
    assert message.destinations["ToAddresses"] == [TO]
    assert message.subject.startswith("You received a ") and message.subject.endswith(" gift card")
    assert "PANEL-0001" in message.body and "$15.00 USD" in message.body
    assert "Thanks for &lt;i&gt;helping&lt;/i&gt;" in message.body
    [record] = MailRepository(demo.table).log(1)
    assert (record.kind, record.status, record.recipient) == ("gift_card", MailStatus.SENT, TO)


def test_a_card_made_in_the_panel_without_an_address_sends_nothing(demo: DemoStore, ses: Sent) -> None:
    saved = _panel_card(signed_in(Role.OWNER))
    assert saved.status == 303, saved.body
    assert any(c.card_number == "PANEL-0001" for c in CatalogEdits(demo.table).gift_cards(1))
    assert published(GIFT_CARD_DELIVERY) == []
    assert ses() == []


def test_the_panel_refuses_a_bad_address_or_a_message_without_one_and_makes_no_card(
    demo: DemoStore, ses: Sent
) -> None:
    owner = signed_in(Role.OWNER)
    before = CatalogEdits(demo.table).gift_cards(1)
    for fields, says in (
        ({"email": "not an address", "message": "hi"}, "email is not an email address"),
        ({"message": "hi there"}, "give the email to send it to"),
        ({"email": TO, "message": "x" * 1001}, "message is longer than 1,000 characters"),
    ):
        refused = _panel_card(owner, **fields)
        assert refused.status == 422, refused.body
        assert says in html.unescape(refused.body)
        assert fields["message"][:20] in refused.body  # the form again, as typed
    assert CatalogEdits(demo.table).gift_cards(1) == before
    assert published(GIFT_CARD_DELIVERY) == []
    assert ses() == []


def test_an_existing_cards_form_has_no_recipient(demo: DemoStore) -> None:
    card = CatalogEdits(demo.table).gift_cards(1)[0]
    page = signed_in(Role.OWNER).get(get_catalog_element.handler, f"/catalog/gift-cards/{card.id}")
    assert page.status == 200, page.body
    assert 'name="card_number"' in page.body and 'name="email"' not in page.body
