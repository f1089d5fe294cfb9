"""The receipt and refund e-mails link the payment's invoice (and the refund's credit note):
a checkout through the handlers, the consumer fed its events, the links opened through the
invoice page's handler."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default
from pathlib import Path
from typing import Any

import time_machine

from functions.admin import refund_payment
from functions.storefront import get_invoice
from tests.integration.subscriptions.support import run
from tests.support.cancellation import buy_subscription
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.panel import signed_in
from webstore.admin.roles import Role
from webstore.event_types import EventType
from webstore.mail.delivery import MailDispatcher, Outcome
from webstore.mail.smtp import FileSender
from webstore.repo.payments import PaymentRepository
from webstore.services import get_services

from .conftest import MailQueue, published

EMAIL = "steve@example.com"
SHOP = "https://shop.test"
START = datetime(2026, 6, 1, 12, tzinfo=UTC)
RENEWAL = datetime(2026, 7, 1, 12, tzinfo=UTC)

Sent = Callable[[], list[Any]]


def links(body: str, label: str) -> list[str]:
    """The document URLs the message gives after `label` (HTML href and the plain text's)."""
    return re.findall(rf"{label} [A-Z0-9-]+: (?:<a href=\")?({SHOP}/invoices/[^\s\"<]+)", body)


def open_document(invoke: Invoke, url: str) -> str:
    token, _, query = url.removeprefix(f"{SHOP}/invoices/").partition("?")
    params = dict(p.split("=", 1) for p in query.split("&")) if query else None
    answer = invoke(get_invoice.handler, "GET", f"/invoices/{token}", query=params)
    assert answer.status == 200, answer.body
    return str(answer.body)


def test_the_receipt_links_the_invoice_and_the_refund_its_credit_note(
    invoke: Invoke, demo: DemoStore, ses: Sent, mail_queue: MailQueue
) -> None:
    bought = buy_subscription(invoke, demo, email=EMAIL)
    mail_queue.deliver(published(EventType.PAYMENT_COMPLETED))
    [receipt] = ses()
    payment = PaymentRepository(demo.table).by_transaction(1, bought.reference)
    assert payment.invoice is not None
    number = payment.invoice.invoice_label
    assert f"Your invoice {number}" in receipt.body
    found = set(links(receipt.body, "Your invoice"))
    assert len(found) == 1, receipt.body
    invoice = open_document(invoke, found.pop())
    assert "Invoice" in invoice and number in invoice
    assert "credit note" not in receipt.body.lower()

    owner = signed_in(Role.OWNER)
    refunded = owner.post(refund_payment.handler, f"/payments/{bought.reference}/refund", {"confirm": "yes"})
    assert refunded.status == 303, refunded.body
    mail_queue.deliver(published(EventType.PAYMENT_REFUNDED))
    [_, refund] = ses()
    assert refund.subject.startswith("Your refund from")
    [note] = PaymentRepository(demo.table).by_transaction(1, bought.reference).refunds
    credit = set(links(refund.body, "Your credit note"))
    assert len(credit) == 1, refund.body
    page = open_document(invoke, credit.pop())
    assert "Credit note" in page and note.credit_note.credit_label in page and number in page
    assert set(links(refund.body, "Your invoice"))  # the invoice it corrects, too


def test_the_renewal_receipt_links_the_renewal_payments_own_invoice(
    invoke: Invoke, demo: DemoStore, ses: Sent, mail_queue: MailQueue
) -> None:
    with time_machine.travel(START, tick=False) as traveller:
        bought = buy_subscription(invoke, demo, email=EMAIL)
        traveller.move_to(RENEWAL + timedelta(seconds=30))
        run(RENEWAL + timedelta(seconds=30))
        [renewed] = published(EventType.RECURRING_RENEWED)
        mail_queue.deliver([renewed])
    [message] = ses()
    paid = renewed.subject["last_payment"]["transaction_id"]
    renewal = PaymentRepository(demo.table).by_transaction(1, paid)
    assert renewal.transaction_id != bought.reference and renewal.invoice is not None
    assert f"Your invoice {renewal.invoice.invoice_label}" in message.body
    [url] = set(links(message.body, "Your invoice"))
    assert renewal.invoice.invoice_label in open_document(invoke, url)


def _attachments(mime: EmailMessage) -> list[tuple[str, str, str]]:
    """(file name, MIME type, content) of each attachment."""
    return [
        (str(part.get_filename()), part.get_content_type(), str(part.get_content()))
        for part in mime.iter_attachments()
    ]


def test_the_receipt_and_the_refund_carry_their_documents_as_files_through_ses(
    invoke: Invoke, demo: DemoStore, ses: Sent, mail_queue: MailQueue
) -> None:
    bought = buy_subscription(invoke, demo, email=EMAIL)
    mail_queue.deliver(published(EventType.PAYMENT_COMPLETED))
    [receipt] = ses()
    payment = PaymentRepository(demo.table).by_transaction(1, bought.reference)
    assert payment.invoice is not None
    number = payment.invoice.invoice_label
    assert receipt.mime.get_content_type() == "multipart/mixed"
    assert receipt.mime["Auto-Submitted"] == "auto-generated"
    [(name, kind, html)] = _attachments(receipt.mime)
    assert (name, kind) == (f"Invoice-{number}.html", "text/html")
    assert number in html and "<style>" in html  # a document of its own, styles inline
    assert receipt.mime.get_body(("plain",)) is not None  # the text part is still there

    owner = signed_in(Role.OWNER)
    owner.post(refund_payment.handler, f"/payments/{bought.reference}/refund", {"confirm": "yes"})
    mail_queue.deliver(published(EventType.PAYMENT_REFUNDED))
    [_, refund] = ses()
    [note] = PaymentRepository(demo.table).by_transaction(1, bought.reference).refunds
    files = _attachments(refund.mime)
    assert [(n, k) for n, k, _ in files] == [
        (f"Invoice-{number}.html", "text/html"),
        (f"Credit-note-{note.credit_note.credit_label}.html", "text/html"),
    ]
    assert "Credit note" in files[1][2]


def test_the_local_outbox_eml_carries_the_invoice(
    invoke: Invoke, demo: DemoStore, ses: Sent, tmp_path: Path
) -> None:
    buy_subscription(invoke, demo, email=EMAIL)
    [event] = published(EventType.PAYMENT_COMPLETED)

    result = MailDispatcher(get_services(), sender=FileSender(tmp_path)).dispatch(event)

    assert result.outcomes == {"receipt": Outcome.SENT}
    [eml] = tmp_path.glob("*.eml")
    mime = message_from_bytes(eml.read_bytes(), policy=default)
    assert isinstance(mime, EmailMessage)
    [(name, kind, html)] = _attachments(mime)
    assert name.startswith("Invoice-") and name.endswith(".html") and kind == "text/html"
    assert "Invoice" in html
    assert ses() == []  # the .eml, not SES
