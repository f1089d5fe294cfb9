"""The webhook subject of a payment (COMPAT.md: payment subject), one shape for every payment
event: completed, refunded, disputed (built from the stored payment) and declined (built from
the basket whose payment failed, so nothing was stored)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from webstore.domain.gateways import MANUAL
from webstore.domain.payment_status import PaymentStatus
from webstore.money import ZERO, symbol


@dataclass(frozen=True)
class SubjectLine:
    package_id: int
    name: str
    quantity: int
    base_price: Decimal  # one unit's list price
    paid_price: Decimal  # the whole line
    variables: dict[str, str]
    username_id: int | str | None  # who receives it (the buyer, or a gift's target)
    username: str


@dataclass(frozen=True)
class SubjectPayment:
    transaction_id: str | None  # None: declined, no payment was made
    status: PaymentStatus
    created_at: datetime
    currency: str
    price_paid: Decimal
    gateway: str
    email: str
    ip: str
    country: str
    username_id: int | None
    username: str
    lines: list[SubjectLine]
    coupons: list[str] = field(default_factory=list)
    gift_cards: list[tuple[str, Decimal]] = field(default_factory=list)  # (card number, amount used)
    custom: dict[str, Any] | None = None
    creator_code: str = ""
    decline_reason: str | None = None
    recurring_payment_reference: str | None = None  # the subscription it started or renewed
    payment_sequence: str = "oneoff"  # oneoff | recurring (subscription lines only) | mixed
    tax: Decimal = ZERO  # the tax the payment holds (payment.tax.tax)
    postal_code: str = ""  # the billing postal code, when the checkout asked for it


def payment_subject(payment: SubjectPayment) -> dict[str, Any]:
    currency = payment.currency

    def price(amount: Decimal) -> dict[str, Any]:
        return {"amount": float(amount), "currency": currency}

    def player(username_id: int | str | None, username: str) -> dict[str, Any]:
        return {"id": str(username_id) if username_id is not None else None, "username": username}

    base = sum((line.base_price * line.quantity for line in payment.lines), ZERO)
    return {
        "transaction_id": payment.transaction_id,
        "status": {"id": payment.status.id, "description": payment.status.description},
        "payment_sequence": payment.payment_sequence,
        "created_at": payment.created_at.isoformat(),
        "price": price(base),
        "price_paid": price(payment.price_paid),
        "payment_method": {"name": payment.gateway, "refundable": payment.gateway != MANUAL.name},
        "fees": {"tax": price(payment.tax), "gateway": price(ZERO)},
        "customer": {
            "first_name": "",
            "last_name": "",
            "email": payment.email,
            "ip": payment.ip,
            "username": player(payment.username_id, payment.username),
            "marketing_consent": False,
            "country": payment.country,
            "postal_code": payment.postal_code,
        },
        "products": [
            {
                "id": line.package_id,
                "name": line.name,
                "quantity": line.quantity,
                "base_price": price(line.base_price),
                "paid_price": price(line.paid_price),
                "variables": [{"identifier": k, "option": v} for k, v in line.variables.items()],
                "expires_at": None,
                "custom": None,
                "username": player(line.username_id, line.username),
            }
            for line in payment.lines
        ],
        "coupons": [{"code": code} for code in payment.coupons],
        "gift_cards": [
            {"card_number": number, "amount": price(amount)} for number, amount in payment.gift_cards
        ],
        "recurring_payment_reference": payment.recurring_payment_reference,
        # The published schema types `custom` an object: `{}` when the basket carried none, so
        # a receiver reading `subject.custom.key` never meets null (docs/compatibility.md).
        "custom": payment.custom or {},
        "revenue_share": [],
        "decline_reason": (
            {"code": "card_declined", "message": payment.decline_reason} if payment.decline_reason else None
        ),
        "creator_code": payment.creator_code or None,
        "currency_symbol": symbol(currency),
    }
