"""Which messages an event becomes, what a receipt shows, and every template rendered (pure)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from webstore.catalog import StoreProfile
from webstore.mail.compose import compose
from webstore.mail.messages import OWNER_KINDS, MessageKind, kinds_for, receipt, recipient

PAYMENT: dict[str, Any] = {
    "transaction_id": "tbx-7-0a0b0c0d",
    "created_at": "2026-06-01T12:00:00+00:00",
    "price": {"amount": 20.0, "currency": "EUR"},
    "price_paid": {"amount": 12.5, "currency": "EUR"},
    "fees": {"tax": {"amount": 0.0, "currency": "EUR"}},
    "customer": {"email": "steve@example.com", "username": {"id": "1", "username": "Steve"}},
    "products": [
        {"name": "VIP", "quantity": 1, "paid_price": {"amount": 9.0}, "username": {"username": "Steve"}},
        {"name": "Key", "quantity": 2, "paid_price": {"amount": 6.0}, "username": {"username": "Alex"}},
    ],
    "coupons": [{"code": "SUMMER"}],
    "gift_cards": [{"card_number": "GC-1234-5678", "amount": {"amount": 2.5}}],
    "recurring_payment_reference": None,
}
RECURRING: dict[str, Any] = {
    "reference": "tbx-7-0a0b0c0d",
    "status": {"id": 2, "description": "Past due"},
    "fail_count": 1,
    "next_payment_at": "2026-07-01T12:00:00+00:00",
    "price": {"amount": 4.99, "currency": "EUR"},
    "products": [{"id": 1, "name": "VIP"}],
    "last_payment": PAYMENT,
    "initial_payment": PAYMENT,
    "action_url": "https://pay.example/authenticate/1",
}


@pytest.mark.parametrize(
    ("event_type", "subject", "expected"),
    [
        ("payment.completed", PAYMENT, [MessageKind.RECEIPT]),
        (
            "payment.completed",
            {**PAYMENT, "recurring_payment_reference": "tbx-7-0a0b0c0d"},
            [MessageKind.RECEIPT],
        ),
        (
            "payment.completed",
            {**PAYMENT, "recurring_payment_reference": "tbx-1-00000000"},
            [],
        ),  # a renewal's
        ("payment.refunded", PAYMENT, [MessageKind.REFUND]),
        ("payment.declined", PAYMENT, []),
        ("recurring-payment.renewed", RECURRING, [MessageKind.RENEWAL_RECEIPT]),
        ("recurring-payment.status-changed", RECURRING, [MessageKind.RENEWAL_FAILED]),
        ("recurring-payment.status-changed", {**RECURRING, "fail_count": 3}, [MessageKind.FINAL_NOTICE]),
        ("recurring-payment.status-changed", {**RECURRING, "status": {"id": 1}}, []),
        ("recurring-payment.cancellation.requested", RECURRING, [MessageKind.CANCELLED]),
        ("recurring-payment.ended", {**RECURRING, "status": {"id": 4}}, [MessageKind.EXPIRED]),
        ("recurring-payment.ended", {**RECURRING, "status": {"id": 3}}, []),
        ("recurring-payment.started", RECURRING, []),
    ],
)
def test_kinds_for(event_type: str, subject: dict[str, Any], expected: list[MessageKind]) -> None:
    assert kinds_for(event_type, subject, retries=3) == expected


def test_recipient_is_the_payments_email() -> None:
    assert recipient("payment.completed", PAYMENT) == "steve@example.com"
    assert recipient("recurring-payment.renewed", RECURRING) == "steve@example.com"
    assert recipient("payment.completed", {**PAYMENT, "customer": {"email": ""}}) == ""


def test_receipt_rows_reach_the_total_paid() -> None:
    shown = receipt(PAYMENT)
    assert [(r.label, r.amount, r.note) for r in shown.rows] == [
        ("Subtotal", Decimal("20.00"), ""),
        ("Discount", Decimal("-5.00"), "SUMMER"),
        ("Gift card", Decimal("-2.50"), "…5678"),
    ]
    assert sum((r.amount for r in shown.rows), Decimal(0)) == shown.total == Decimal("12.50")
    assert [line.gift_for for line in shown.lines] == ["", "Alex"]


STORE = StoreProfile(
    id=1,
    name="Crafty <b>Café</b>",
    webstore_url="https://crafty.example",
    terms_url="https://crafty.example/terms",
    primary_color="#aa3300",
)


@pytest.mark.parametrize("kind", list(OWNER_KINDS))  # the sign-in link: compose_sign_in
def test_every_message_renders_html_and_text_in_the_brand_with_values_escaped(kind: MessageKind) -> None:
    subject = PAYMENT if kind in (MessageKind.RECEIPT, MessageKind.REFUND) else RECURRING
    hostile = {
        **subject,
        "products": [{"name": "<script>x</script>", "quantity": 1, "paid_price": {"amount": 1}}],
    }

    composed = compose(kind, STORE, hostile, manage_url="https://shop.test/subscriptions/1.tbx.mac")

    assert "Crafty <b>Café</b>" in composed.subject  # a header is text, not HTML
    assert "Crafty &lt;b&gt;Café&lt;/b&gt;" in composed.html and "<b>Café" not in composed.html
    assert "<script>" not in composed.html and "#aa3300" in composed.html
    assert "Crafty <b>Café</b>" in composed.text and "<td" not in composed.text
    assert "https://crafty.example/terms" in composed.html


def test_renewal_failed_carries_the_pay_link_and_the_manage_link() -> None:
    composed = compose(
        MessageKind.RENEWAL_FAILED, STORE, RECURRING, manage_url="https://shop.test/subscriptions/1.tbx.mac"
    )
    assert "https://pay.example/authenticate/1" in composed.html
    assert "https://pay.example/authenticate/1" in composed.text
    assert "https://shop.test/subscriptions/1.tbx.mac" in composed.text


def test_cancelled_says_when_access_ends() -> None:
    composed = compose(MessageKind.CANCELLED, STORE, RECURRING)
    assert "You keep access until 1 July 2026" in composed.text


def test_ours_gift_card_and_sign_in_go_to_the_address_they_carry() -> None:
    subject = {"email": " alex@example.com ", "code": "ABC"}
    assert kinds_for("gift-card.delivery", subject, 3) == [MessageKind.GIFT_CARD]
    assert kinds_for("subscriptions.sign-in.requested", subject, 3) == [MessageKind.SIGN_IN]
    assert recipient("gift-card.delivery", subject) == "alex@example.com"
    assert recipient("subscriptions.sign-in.requested", subject) == "alex@example.com"
