"""What a payment source (hosted checkout, manual payment) hands to fulfilment."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from pydantic import Field, field_validator

from webstore import keys
from webstore.catalog import Model
from webstore.domain.gateways import MANUAL
from webstore.repo.payments import GiftCardUse
from webstore.tax.model import PaymentTax

MAX_LINES = 100
_IDEMPOTENCY_KEY = re.compile(r"^[A-Za-z0-9_\-:.]{1,128}$")


class OrderLine(Model):
    package_id: int = Field(ge=1, le=keys.INT32_MAX)
    quantity: int = Field(default=1, ge=1, le=1000)
    paid_price: Decimal = Field(ge=0)  # for the whole line
    variables: dict[str, str] = Field(default_factory=dict)
    gift_username: str | None = None  # gift target: receives the package and its commands
    # A basket's dynamic package (checkout): recorded on the payment, queues no commands.
    dynamic: bool = False
    name: str | None = None
    category_id: int | None = None


class Order(Model):
    """One purchase, paid: recorded once per `idempotency_key` however often it is handed over."""

    account_id: int = Field(ge=1, le=keys.INT32_MAX)
    idempotency_key: str
    username: str
    email: str = ""
    ip: str = ""
    country: str = ""
    lines: list[OrderLine] = Field(min_length=1, max_length=MAX_LINES)
    price_paid: Decimal = Field(ge=0)
    currency: str
    gateway: str = MANUAL.name
    coupons: list[str] = Field(default_factory=list)
    giftcards: list[GiftCardUse] = Field(default_factory=list)
    creator_code: str = ""
    basket_ident: str | None = None
    # The hosted checkout's attempt whose charge pays this order: recorded only while that
    # attempt holds the basket's claim, and kept on the payment so that another attempt's
    # charge can be recognised (and refunded) as a second one.
    checkout_attempt: str | None = None
    custom: dict[str, Any] | None = None
    note: str = ""
    # The tax the basket's prices hold and the buyer's country evidence (docs/tax-model.md).
    tax: PaymentTax | None = None
    # The gateway's reference of the payment method saved for off-session renewals ("": none).
    saved_method: str = ""

    @field_validator("idempotency_key")
    @classmethod
    def _key_shape(cls, value: str) -> str:
        if not _IDEMPOTENCY_KEY.match(value):
            raise ValueError("1 to 128 letters, digits or _-:.")
        return value
