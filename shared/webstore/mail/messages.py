"""Which messages a domain event becomes, and what each shows: pure rules (docs/mail.md).

| event                                        | message                                           |
|----------------------------------------------|---------------------------------------------------|
| payment.completed (not a renewal's payment)  | receipt                                           |
| recurring-payment.renewed                    | renewal receipt                                   |
| recurring-payment.status-changed → past due  | renewal failed (final notice before the last try) |
| recurring-payment.cancellation.requested     | cancelled (with the date access ends)             |
| recurring-payment.ended as expired           | expired                                           |
| payment.refunded                             | refund issued                                     |
| gift-card.delivery (ours: an issued card)    | gift card delivered, to the address given for it  |
| subscriptions.sign-in.requested (ours)       | the sign-in link of "Find my subscriptions"      |

A renewal's own `payment.completed` sends nothing: its `recurring-payment.renewed` is the
renewal receipt. A subscription ended by a cancellation was told at the request; one ended by
a refund or chargeback by the refund message.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Any

from webstore.event_types import GIFT_CARD_DELIVERY, RENEWAL_UPCOMING, SIGN_IN_REQUESTED, EventType
from webstore.recurring import RecurringStatus


class MessageKind(StrEnum):
    RECEIPT = "receipt"
    RENEWAL_RECEIPT = "renewal_receipt"
    RENEWAL_FAILED = "renewal_failed"
    FINAL_NOTICE = "final_notice"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    REFUND = "refund"
    RENEWAL_NOTICE = "renewal_notice"
    GIFT_CARD = "gift_card"
    SIGN_IN = "sign_in"  # "Find my subscriptions": always sent, in the house's words

    @property
    def label(self) -> str:
        return LABELS[self]


LABELS = {
    MessageKind.RECEIPT: "Receipt",
    MessageKind.RENEWAL_RECEIPT: "Renewal receipt",
    MessageKind.RENEWAL_FAILED: "Renewal failed",
    MessageKind.FINAL_NOTICE: "Final notice before expiry",
    MessageKind.CANCELLED: "Subscription cancelled",
    MessageKind.EXPIRED: "Subscription expired",
    MessageKind.REFUND: "Refund issued",
    MessageKind.RENEWAL_NOTICE: "Renewal coming up",
    MessageKind.GIFT_CARD: "Gift card delivered",
    MessageKind.SIGN_IN: "Sign-in link (Find my subscriptions)",
}

# The messages an owner switches on or off and words (the sign-in link is always sent, as is).
OWNER_KINDS = tuple(k for k in MessageKind if k is not MessageKind.SIGN_IN)


# The event types some message comes from (the bus rule of the mail queue lets only these through).
MAIL_EVENT_TYPES = (
    EventType.PAYMENT_COMPLETED,
    EventType.PAYMENT_REFUNDED,
    EventType.RECURRING_RENEWED,
    EventType.RECURRING_STATUS_CHANGED,
    EventType.RECURRING_CANCELLATION_REQUESTED,
    EventType.RECURRING_ENDED,
    RENEWAL_UPCOMING,
    GIFT_CARD_DELIVERY,
    SIGN_IN_REQUESTED,
)


def kinds_for(event_type: str, subject: dict[str, Any], retries: int) -> list[MessageKind]:
    """The messages `event_type` with `subject` becomes; `retries`: how many times the store
    tries a declined renewal again (its `renewal_retry_days`)."""
    if event_type == EventType.PAYMENT_COMPLETED:
        reference = subject.get("recurring_payment_reference")
        renewal = bool(reference) and reference != subject.get("transaction_id")
        return [] if renewal else [MessageKind.RECEIPT]
    if event_type == EventType.PAYMENT_REFUNDED:
        return [MessageKind.REFUND]
    if event_type == EventType.RECURRING_RENEWED:
        return [MessageKind.RENEWAL_RECEIPT]
    if event_type == RENEWAL_UPCOMING:
        return [MessageKind.RENEWAL_NOTICE]
    if event_type == GIFT_CARD_DELIVERY:
        return [MessageKind.GIFT_CARD]
    if event_type == SIGN_IN_REQUESTED:
        return [MessageKind.SIGN_IN]
    status = (subject.get("status") or {}).get("id")
    if event_type == EventType.RECURRING_STATUS_CHANGED and status == RecurringStatus.PAST_DUE:
        last_try = int(subject.get("fail_count") or 0) >= retries
        return [MessageKind.FINAL_NOTICE if last_try else MessageKind.RENEWAL_FAILED]
    if event_type == EventType.RECURRING_CANCELLATION_REQUESTED:
        return [MessageKind.CANCELLED]
    if event_type == EventType.RECURRING_ENDED and status == RecurringStatus.EXPIRED:
        return [MessageKind.EXPIRED]
    return []


def recipient(event_type: str, subject: dict[str, Any]) -> str:
    """Where the message goes: the payment's e-mail ("" : the player gave none); a gift card's
    the address the owner gave for it."""
    if event_type in (GIFT_CARD_DELIVERY, SIGN_IN_REQUESTED):
        return str(subject.get("email") or "").strip()
    payment = subject if event_type.startswith("payment.") else subject.get("last_payment") or {}
    email = (payment.get("customer") or {}).get("email") or ""
    if not email and not event_type.startswith("payment."):
        email = ((subject.get("initial_payment") or {}).get("customer") or {}).get("email") or ""
    return str(email).strip()


# --- what a receipt shows, from the payment subject -----------------------------------------


def _amount(price: Any) -> Decimal:
    if not isinstance(price, dict):
        return Decimal(0)
    return Decimal(str(price.get("amount") or 0)).quantize(Decimal("0.01"))


@dataclass(frozen=True)
class ReceiptLine:
    name: str
    quantity: int
    amount: Decimal
    gift_for: str = ""


# A receipt's rows (translated where the message is: `row.label|trans`, the shop's catalogs).
SUBTOTAL, DISCOUNT, GIFT_CARD, TAX = "Subtotal", "Discount", "Gift card", "Tax"
ROW_LABELS = (SUBTOTAL, DISCOUNT, GIFT_CARD, TAX)


@dataclass(frozen=True)
class ReceiptRow:
    label: str
    amount: Decimal
    note: str = ""


@dataclass(frozen=True)
class Receipt:
    transaction_id: str
    currency: str
    lines: list[ReceiptLine]
    rows: list[ReceiptRow]  # subtotal, discounts, gift cards, tax
    total: Decimal
    username: str
    paid_on: str  # ISO date-time


def receipt(subject: dict[str, Any]) -> Receipt:
    """The payment as its receipt shows it: the lines, then subtotal, discount (with the coupons
    used), gift cards, tax, and the total paid."""
    currency = str((subject.get("price_paid") or {}).get("currency") or "")
    buyer = ((subject.get("customer") or {}).get("username") or {}).get("username") or ""
    lines = []
    for product in subject.get("products") or []:
        receiver = (product.get("username") or {}).get("username") or ""
        lines.append(
            ReceiptLine(
                name=str(product.get("name") or ""),
                quantity=int(product.get("quantity") or 1),
                amount=_amount(product.get("paid_price")),
                gift_for=receiver if receiver and receiver != buyer else "",
            )
        )
    subtotal = _amount(subject.get("price"))
    paid_lines = sum((line.amount for line in lines), Decimal(0))
    rows = [ReceiptRow(SUBTOTAL, subtotal)]
    if subtotal > paid_lines:
        codes = ", ".join(str(c.get("code")) for c in subject.get("coupons") or [] if c.get("code"))
        rows.append(ReceiptRow(DISCOUNT, paid_lines - subtotal, codes))
    for card in subject.get("gift_cards") or []:
        number = str(card.get("card_number") or "")
        rows.append(ReceiptRow(GIFT_CARD, -_amount(card.get("amount")), f"…{number[-4:]}" if number else ""))
    tax = _amount((subject.get("fees") or {}).get("tax"))
    if tax:
        rows.append(ReceiptRow(TAX, tax))
    return Receipt(
        transaction_id=str(subject.get("transaction_id") or ""),
        currency=currency,
        lines=lines,
        rows=rows,
        total=_amount(subject.get("price_paid")),
        username=buyer,
        paid_on=str(subject.get("created_at") or ""),
    )
