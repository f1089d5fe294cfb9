"""A gift card issued through the operator interface with an `email`: its delivery event is in the
outbox (written with the card), and the mail consumer sends "you received a gift card" (code,
balance, the store's link) once, through SES (moto); without `email` nothing is sent; a bad
address is refused and no card is made; the recipient's note is escaped."""

from __future__ import annotations

import html

from functions.operator import create_gift_card, get_gift_cards
from tests.integration.operator.support import secret_headers
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke, Response
from webstore.event_types import GIFT_CARD_DELIVERY
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
