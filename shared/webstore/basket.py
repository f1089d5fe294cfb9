"""The basket aggregate: one item holding its lines, applied codes and dynamic packages.

A basket is read and written whole (one GetItem, one conditional write on `version`), so it
never shows half an update and two concurrent writers cannot lose each other's change.
Prices are computed at write time (the catalog is read then) and stored with the basket.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Any

from pydantic import Field

from webstore.catalog import Amount, Coupon, Model, PackageType

MAX_LINES = 100
MAX_QUANTITY = 1000

JsonObject = dict[str, Any]


class BasketLine(Model):
    package_id: int
    category_id: int
    ident: str
    name: str
    description: str = ""
    image: str | None = None
    slug: str = ""
    type: PackageType = PackageType.SINGLE
    quantity: Annotated[int, Field(ge=1, le=MAX_QUANTITY)] = 1
    base_price: Amount = Decimal(0)  # list price of one unit when added (repricing uses it)
    unit_price: Amount = Decimal(0)  # after sales and package-level coupons, before tax
    line_price: Amount = Decimal(0)  # unit_price x quantity
    gift_username_id: str | None = None
    gift_username: str | None = None
    variable_data: dict[str, str] = Field(default_factory=dict)
    dynamic: bool = False


class DynamicPackage(Model):
    """A package made for one basket (PUT dynamic-packages); it lives and dies with the basket."""

    id: int
    category_id: int
    name: str
    price: Amount
    slug: str
    description: str = ""
    image_url: str | None = None
    custom: dict[str, str] = Field(default_factory=dict)


class Basket(Model):
    ident: str
    account_id: int
    currency: str
    complete: bool = False
    email: str | None = None
    username: str | None = None
    username_id: int | None = None
    country: str = ""
    ip: str = ""
    coupons: list[Coupon] = Field(default_factory=list)  # definitions as applied
    giftcards: list[str] = Field(default_factory=list)
    # Balance of each applied card when applied: what pricing counts on until checkout debits it.
    giftcard_balances: dict[str, Amount] = Field(default_factory=dict)
    creator_code: str = ""
    cancel_url: str = ""
    complete_url: str | None = None
    complete_auto_redirect: bool = False
    lines: list[BasketLine] = Field(default_factory=list)
    dynamic_packages: list[DynamicPackage] = Field(default_factory=list)
    custom: JsonObject | None = None
    base_price: Amount = Decimal(0)
    discount: Amount = Decimal(0)
    sales_tax: Amount = Decimal(0)
    total_price: Amount = Decimal(0)
    giftcard_amount: Amount = Decimal(0)  # what gift cards cover of total_price
    giftcard_split: dict[str, Amount] = Field(default_factory=dict)  # card number -> what it covers
    notify_abandoned: bool = False
    transaction_id: str | None = None
    payment_status: str | None = None  # complete | refund | chargeback once paid
    created_at: datetime
    updated_at: datetime
    expires_at: int | None = None  # epoch seconds (TTL) while abandoned-able; None once complete
    # The hosted checkout's claim: while a payment attempt holds it, the basket refuses changes.
    checkout_attempt: str | None = None
    checkout_started_at: datetime | None = None
    version: int = 0
