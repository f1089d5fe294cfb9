"""The storefront interface's shapes (SPEC.md, COMPAT.md): what clients read, field for field."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Generic, TypeVar

from pydantic import BaseModel, PlainSerializer, model_serializer

# SPEC types money as "float": a JSON number, not a string.
Money = Annotated[Decimal, PlainSerializer(float, return_type=float, when_used="json")]
T = TypeVar("T")


class Envelope(BaseModel, Generic[T]):
    data: T


class Webstore(BaseModel):
    id: int
    description: str
    name: str
    webstore_url: str
    currency: str
    lang: str
    logo: str | None
    platform_type: str
    platform_type_id: str
    disabled: bool
    created_at: str
    supports_usernames: bool
    supports_gifting: bool


class CMSPage(BaseModel):
    id: int
    created_at: str
    updated_at: str
    account_id: int
    title: str
    slug: str
    private: bool
    hidden: bool
    disabled: bool
    sequence: bool
    content: str


class CategoryRef(BaseModel):
    id: int
    name: str


class PackageMedia(BaseModel):
    type: str
    name: str | None
    url: str
    featured: bool
    primary: bool


class Package(BaseModel):
    id: int
    ident: str
    name: str
    description: str
    image: str | None
    type: str
    category: CategoryRef
    base_price: Money
    sales_tax: Money
    total_price: Money
    currency: str
    prorate_price: Money | None = None
    discount: Money
    disable_quantity: bool
    disable_gifting: bool
    expiration_date: str | None
    media: list[PackageMedia]
    order: int
    slug: str
    user_limit: int
    creator_meta_data: dict[str, Any]
    options: list[str]
    variables: list[str]
    created_at: str
    updated_at: str
    vip_status: str | None = None


class TierStatus(BaseModel):
    id: int
    description: str


class PendingDowngrade(BaseModel):
    id: int
    name: str


class Tier(BaseModel):
    id: int
    created_at: str
    username_id: str
    package: Package
    active: bool
    recurring_payment_reference: str
    next_payment_date: str | None
    status: TierStatus
    pending_downgrade_package: PendingDowngrade | None


class Category(BaseModel):
    id: int
    name: str
    slug: str | None
    parent: Category | None
    tiered: bool
    active_tier: Tier | None = None
    description: str
    packages: list[Package] | None = None
    order: int
    display_type: str
    image_url: str | None
    dynamic: bool


class BasketCoupon(BaseModel):
    code: str
    coupon_code: str  # what existing clients read (COMPAT.md); same value as `code`


class BasketGiftCard(BaseModel):
    card_number: str


class InBasket(BaseModel):
    quantity: int
    price: Money
    gift_username_id: str | None
    gift_username: str | None


class BasketPackage(BaseModel):
    id: int
    ident: str
    description: str
    image: str | None
    name: str
    slug: str
    in_basket: InBasket
    type: str
    revenue_share: list[dict[str, Any]]
    is_recurring: bool


class BasketLinks(BaseModel):
    """`checkout` only while unpaid, `payment` only once paid: absent keys, not nulls (SPEC)."""

    checkout: str | None = None
    payment: str | None = None

    @model_serializer
    def _present_only(self) -> dict[str, str]:
        return {k: v for k, v in (("checkout", self.checkout), ("payment", self.payment)) if v is not None}


class Basket(BaseModel):
    id: str
    ident: str
    complete: bool
    email: str | None
    username: str | None
    coupons: list[BasketCoupon]
    giftcards: list[BasketGiftCard]
    creator_code: str
    cancel_url: str
    complete_url: str | None
    complete_auto_redirect: bool
    country: str
    ip: str
    username_id: int | None
    base_price: Money
    sales_tax: Money
    total_price: Money
    currency: str
    packages: list[BasketPackage]
    custom: dict[str, Any] | None
    links: BasketLinks


class AuthLink(BaseModel):
    name: str
    url: str


class Message(BaseModel):
    message: str


class Success(BaseModel):
    success: bool
    message: str
