"""The player e-mails speak the store's language (docs/mail.md, "Language"): through the real
mail consumer (SQS under moto, the messages written as `.eml` files so that both parts can be
read), a German store's receipt and renewal-failed message are German, HTML and plain text,
subject included; an English store's stay English; an owner's translation file rewords them."""

from __future__ import annotations

import email
import json
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from email.policy import default
from pathlib import Path

import pytest

from tests.integration.shop.test_translation_files import save
from tests.support.cancellation import buy_subscription
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.panel import signed_in
from webstore import services as services_module
from webstore.admin.roles import Role
from webstore.event_types import EventType
from webstore.events import DomainEvent
from webstore.repo.store import StoreRepository

from .conftest import MailQueue, published
from .test_send_mail import EMAIL

Mailbox = Callable[[], dict[str, EmailMessage]]


@pytest.fixture
def mailbox(aws: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Mailbox]:
    """The messages sent, by subject (the `files` transport: what SES would be given)."""
    folder = tmp_path / "mail"
    monkeypatch.setenv("WEBSTORE_MAIL_TRANSPORT", "files")
    monkeypatch.setenv("WEBSTORE_MAIL_DIR", str(folder))
    services_module.reset()
    services_module.local_bus().published.clear()

    def sent() -> dict[str, EmailMessage]:
        found = {}
        for path in sorted(folder.glob("*.eml")):
            message = email.message_from_bytes(path.read_bytes(), policy=default)
            assert isinstance(message, EmailMessage)
            found[str(message["Subject"]).strip()] = message  # a long one is read back folded
        return found

    yield sent
    services_module.reset()


def speaking(demo: DemoStore, lang: str) -> str:
    """The owner sets the store's language; its name."""
    repository = StoreRepository(demo.table)
    store = repository.store(1).model_copy(update={"lang": lang})
    demo.table.put(repository.store_item(store))
    return store.name


def parts(message: EmailMessage) -> tuple[str, str]:
    """The message's HTML and plain text."""
    html, text = message.get_body(("html",)), message.get_body(("plain",))
    assert html is not None and text is not None
    return str(html.get_content()), str(text.get_content())


def renewal_failed(payment: DomainEvent) -> DomainEvent:
    """The subscription's renewal declined once (as the renewal use case publishes it)."""
    subject = {
        "reference": payment.subject["recurring_payment_reference"],
        "status": {"id": 2, "description": "Past due"},
        "fail_count": 1,
        "next_payment_at": "2026-07-01T12:00:00+00:00",
        "price": payment.subject["price"],
        "products": [{"id": p["id"], "name": p["name"]} for p in payment.subject["products"]],
        "last_payment": payment.subject,
        "initial_payment": payment.subject,
        "action_url": "https://pay.example/authenticate/1",
    }
    return DomainEvent(type=EventType.RECURRING_STATUS_CHANGED, account_id=1, subject=subject)


def test_a_german_stores_receipt_and_renewal_failed_mail_are_german(
    invoke: Invoke, demo: DemoStore, mailbox: Mailbox, mail_queue: MailQueue
) -> None:
    name = speaking(demo, "de")
    bought = buy_subscription(invoke, demo, email=EMAIL)
    [payment] = published(EventType.PAYMENT_COMPLETED)

    assert mail_queue.deliver([payment, renewal_failed(payment)]) == {"batchItemFailures": []}

    sent = mailbox()
    receipt = sent[f"Deine Quittung von {name}"]
    html, text = parts(receipt)
    assert '<html lang="de">' in html and bought.reference in html and bought.reference in text
    assert "Danke für deinen Einkauf" in html and "Insgesamt bezahlt" in html
    assert "Abonnement verwalten" in html and "Transaktion" in html
    assert f"Du erhältst diese E-Mail wegen eines Kaufs bei {name}." in html
    assert "Danke für deinen Einkauf" in text and "Insgesamt bezahlt:" in text
    assert "Dieser Kauf enthält ein Abonnement. Du kannst es jederzeit verwalten oder kündigen:" in text
    assert "Thank you" not in html + text and "Total paid" not in html + text

    failed = sent[f"Handlungsbedarf: Die Zahlung für dein Abonnement bei {name} ist fehlgeschlagen"]
    html, text = parts(failed)
    assert '<html lang="de">' in html and "Deine Verlängerungszahlung ist fehlgeschlagen" in html
    product = payment.subject["products"][0]["name"]
    assert f"für dein Abonnement für {product} nicht abbuchen. Deine Vorteile bleiben vorerst" in html
    assert ">Zahlung abschließen</a>" in html and "Zahlungsmethode ändern oder kündigen" in html
    assert "Deine Bank bittet dich, diese Zahlung zu bestätigen: https://pay.example/authenticate/1" in text
    assert f"für dein Abonnement für {product} nicht abbuchen" in text
    assert "We could not" not in html + text and "Your bank" not in html + text


def test_an_english_stores_mail_stays_english(
    invoke: Invoke, demo: DemoStore, mailbox: Mailbox, mail_queue: MailQueue
) -> None:
    name = speaking(demo, "en")
    buy_subscription(invoke, demo, email=EMAIL)
    [payment] = published(EventType.PAYMENT_COMPLETED)

    assert mail_queue.deliver([payment, renewal_failed(payment)]) == {"batchItemFailures": []}

    sent = mailbox()
    html, text = parts(sent[f"Your receipt from {name}"])
    assert '<html lang="en">' in html and "Thank you for your purchase" in html and "Total paid" in html
    assert "Thank you for your purchase." in text and "Total paid:" in text
    html, text = parts(sent[f"Action needed: your {name} subscription payment did not go through"])
    assert "Your renewal payment did not go through" in html and "We could not take" in html
    assert "Your bank asks you to confirm this payment: https://pay.example/authenticate/1" in text


def test_the_owners_translation_file_rewords_the_mail(
    invoke: Invoke, demo: DemoStore, mailbox: Mailbox, mail_queue: MailQueue
) -> None:
    """An owner's German file (panel → Shop → Translations) over the catalogs' German: the
    subject and the body; markup in it printed as text in the HTML part."""
    name = speaking(demo, "de")
    words = {
        "Your receipt from %(store)s": "Dein Beleg von %(store)s",
        "Thank you for your purchase": "Vielen Dank, Held <script>alert(1)</script>",
    }
    assert save(signed_in(Role.OWNER), json.dumps(words, ensure_ascii=False)).status == 303
    buy_subscription(invoke, demo, email=EMAIL)
    [payment] = published(EventType.PAYMENT_COMPLETED)

    assert mail_queue.deliver([payment]) == {"batchItemFailures": []}

    html, text = parts(mailbox()[f"Dein Beleg von {name}"])
    assert "Vielen Dank, Held &lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>" not in html
    assert "Vielen Dank, Held <script>alert(1)</script>" in text  # plain text is not HTML
    assert "Insgesamt bezahlt" in html and "Danke für deinen Einkauf" not in html + text
