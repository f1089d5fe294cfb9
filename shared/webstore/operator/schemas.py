"""The operator interface's shapes (SPEC.md, COMPAT.md): what plugins and admin tools read.
The command queue's are in `queue_schemas`."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, Field, field_validator, model_validator

from webstore.catalog import BasketType, DiscountType
from webstore.keys import INT32_MAX
from webstore.operator.information_wire import Currency, Information, InformationAccount, ServerRef
from webstore.operator.wire import Wire

# GET /information's shapes live apart (that function loads only those); still `schemas.<Name>`.
__all__ = ["Currency", "Information", "InformationAccount", "ServerRef"]

T = TypeVar("T")


# --- payments ---------------------------------------------------------------------------------


class Gateway(Wire):
    id: int
    name: str


class PaymentPlayer(Wire):
    id: int
    name: str
    uuid: str | None


class PaymentPackage(Wire):
    id: int
    name: str


class PaymentNote(Wire):
    created_at: str
    note: str


class Payment(Wire):
    id: int
    txn_id: str
    amount: str
    date: str
    currency: Currency
    gateway: Gateway
    status: str
    email: str
    player: PaymentPlayer
    packages: list[PaymentPackage]
    notes: list[PaymentNote]
    creator_code: str


class PaymentPage(Wire):
    total: int
    per_page: int
    current_page: int
    last_page: int
    next_page_url: str | None
    prev_page_url: str | None
    from_: int = Field(serialization_alias="from")  # 0 on an empty page (CS: non-nullable int)
    to: int
    data: list[Payment]


class PaymentField(Wire):
    name: str
    type: str
    rules: str
    description: str


# --- coupons ----------------------------------------------------------------------------------


class CouponEffective(Wire):
    type: str
    packages: list[int]
    categories: list[int]


class CouponDiscount(Wire):
    type: str
    percentage: float
    value: float


class CouponExpire(Wire):
    redeem_unlimited: str
    expire_never: str
    limit: int
    date: str  # never null: MC parses it (NO_EXPIRY when the coupon does not expire)


class Coupon(Wire):
    id: int
    code: str
    effective: CouponEffective
    discount: CouponDiscount
    expire: CouponExpire
    basket_type: str
    start_date: str  # never null (MC, CS): the creation time when no start date was set
    user_limit: int
    minimum: int | float  # an integer literal when whole: CS reads an int
    username: str  # "" when unset (MC reads a string)
    note: str


class Pagination(Wire):
    totalResults: int  # SPEC names it so
    currentPage: int
    lastPage: int
    previous: str | None
    next: str | None


class CouponList(Wire):
    pagination: Pagination
    data: list[Coupon]


# --- goals, packages, sales, bans, players ----------------------------------------------------


class CommunityGoal(Wire):
    id: int
    created_at: str
    updated_at: str
    account: int
    name: str
    description: str
    image: str
    target: str
    current: str
    repeatable: int
    last_achieved: str | None
    times_achieved: int
    status: str
    sale: int


class PackageSale(Wire):
    active: bool
    discount: float


class OperatorPackage(Wire):
    id: int
    name: str
    order: int
    image: str | Literal[False]  # the URL, or false as the platform sends (MC reads a string)
    price: float
    sale: PackageSale
    expiry_length: int
    expiry_period: str
    type: str
    category: ServerRef
    global_limit: int
    global_limit_period: str
    user_limit: int
    user_limit_period: str
    servers: list[ServerRef]
    required_packages: list[int]
    require_any: bool
    create_giftcard: bool
    show_until: int | Literal[False]  # unix time, or false (MC reads it, so never null)
    gui_item: str
    disabled: bool
    disable_quantity: bool
    custom_price: bool
    choose_server: bool
    limit_expires: bool
    inherit_commands: bool
    variable_giftcard: bool


class VerbosePackage(OperatorPackage):
    """`?verbose=true` adds the description (COMPAT.md)."""

    description: str


class SaleEffective(Wire):
    type: str
    packages: list[int]
    categories: list[int]


class SaleDiscount(Wire):
    type: str
    percentage: float
    value: float


class Sale(Wire):
    id: int
    name: str
    effective: SaleEffective
    discount: SaleDiscount
    start: int
    expire: int
    order: int


class BanUser(Wire):
    ign: str
    uuid: str | None


class Ban(Wire):
    id: int
    time: str
    ip: str
    payment_email: str
    reason: str
    user: BanUser


class LookupPlayer(Wire):
    id: str
    username: str  # what the official plugin reads
    name: str  # what the C# SDK reads (the same name)
    meta: str
    plugin_username_id: int


class LookupPayment(Wire):
    txn_id: str
    time: int
    price: float
    currency: str
    status: int


class PlayerLookup(Wire):
    player: LookupPlayer
    banCount: int  # SPEC names it so
    chargebackRate: float
    payments: list[LookupPayment]
    # `[]` while empty: the only value both the official plugin (an object, else ignored) and
    # the C# SDK (an array) parse; with totals, the platform's object.
    purchaseTotals: dict[str, float] | list[Any]


class DataList(Wire, Generic[T]):
    data: list[T]


class Data(Wire, Generic[T]):
    data: T


# --- request bodies ---------------------------------------------------------------------------


class CouponCreate(BaseModel):
    """POST /coupons, SPEC's body. Which fields matter depends on the others; `new_coupon` checks."""

    code: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_\-]+$")
    effective_on: Literal["package", "category", "cart"]

    @field_validator("effective_on", mode="before")
    @classmethod
    def singular(cls, value: Any) -> Any:
        """BuycraftX sends `packages` / `categories`."""
        return {"packages": "package", "categories": "category"}.get(value, value)

    @model_validator(mode="before")
    @classmethod
    def buycraftx_user_limit(cls, value: Any) -> Any:
        """BuycraftX sends the per-player limit as `redeem_limit`."""
        if isinstance(value, dict) and "redeem_limit" in value and "user_limit" not in value:
            return {**value, "user_limit": value["redeem_limit"]}
        return value

    @field_validator("discount_application_method", mode="before")
    @classmethod
    def form_number(cls, value: Any) -> Any:
        """Form bodies carry numbers as text."""
        return (
            int(value)
            if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit()
            else value
        )

    packages: list[int] = Field(default_factory=list, max_length=500)
    categories: list[int] = Field(default_factory=list, max_length=500)
    discount_type: DiscountType
    discount_amount: Decimal = Field(default=Decimal(0), ge=0, max_digits=14, decimal_places=4)
    discount_percentage: Decimal = Field(default=Decimal(0), ge=0, le=100, max_digits=7, decimal_places=4)
    redeem_unlimited: bool = True
    expire_never: bool = True
    expire_limit: int = Field(default=0, ge=0, le=INT32_MAX)
    expire_date: str | None = None
    start_date: str | None = None
    basket_type: BasketType = BasketType.BOTH
    minimum: Decimal = Field(default=Decimal(0), ge=0, max_digits=14, decimal_places=4)
    discount_application_method: Literal[0, 1, 2] = 0
    user_limit: int = Field(default=0, ge=0, le=INT32_MAX)
    username: str | None = None
    note: str = Field(default="", max_length=1000)


class PackageUpdate(BaseModel):
    """PUT /package/{package}: any of these; at least one."""

    disabled: bool | None = None
    name: str | None = Field(default=None, min_length=1, max_length=200)
    price: Decimal | None = Field(default=None, ge=0, le=Decimal("1000000"), max_digits=14, decimal_places=4)


class PaymentUpdate(BaseModel):
    """PUT /payments/{transaction}: a new status (complete, refund, chargeback) and/or the
    username the payment is reassigned to."""

    status: str | None = Field(default=None, max_length=20)
    username: str | None = Field(default=None, max_length=64)

    @field_validator("status")
    @classmethod
    def _status_as_named(cls, value: str | None) -> str | None:
        """`" Refund "` names the refund status (an empty one: no status change)."""
        return value.strip().lower() if value else None


class PaymentNoteCreate(BaseModel):
    """POST /payments/{transaction}/note."""

    note: str = Field(min_length=1, max_length=1000)


class BanCreate(BaseModel):
    """POST /bans: a player by username or UUID, optionally an IP address too."""

    reason: str = Field(default="", max_length=1000)
    ip: str | None = Field(default=None, max_length=64)
    user: str = Field(min_length=1, max_length=64)


# --- drop-in routes the plugins call (issue 11; docs/compatibility.md) ------------------------


class ListingSale(Wire):
    active: bool
    discount: float


class ListingPackage(Wire):
    """A package of the in-game `/buy` menu: `image` is a URL or `false` (never null), as the
    official plugin reads it as a string."""

    id: int
    order: int
    name: str
    price: float
    image: str | Literal[False]
    gui_item: str
    sale: ListingSale


class ListingSubcategory(Wire):
    id: int
    order: int
    name: str
    only_subcategories: bool
    gui_item: str
    packages: list[ListingPackage]


class ListingCategory(ListingSubcategory):
    subcategories: list[ListingSubcategory]


class Listing(Wire):
    categories: list[ListingCategory]


class CheckoutLinkRequest(BaseModel):
    """POST /checkout: a package (or, from the legacy plugin, a category) for a player."""

    username: str = Field(min_length=1, max_length=64)
    package_id: int | None = Field(default=None, ge=1, le=INT32_MAX)
    category_id: int | None = Field(default=None, ge=1, le=INT32_MAX)


class CheckoutLink(Wire):
    url: str
    expires: str


class GiftCardBalanceView(Wire):
    starting: str
    remaining: str
    currency: str


class GiftCardView(Wire):
    id: int
    code: str
    balance: GiftCardBalanceView
    note: str
    void: bool
    created_at: str
    expires_at: str | None


class GiftCardCreate(BaseModel):
    """POST /gift-cards: JSON from the C# SDK (amount as a number, ISO `expires_at`), form from
    the legacy plugin (no `expires_at`). Ours, optional (clients that do not send them are
    unaffected): `email`, where the card is e-mailed once, and `message`, said in that e-mail."""

    amount: Decimal = Field(gt=0, le=Decimal("1000000"), max_digits=14, decimal_places=4)
    note: str = Field(default="", max_length=1000)
    expires_at: str | None = Field(default=None, max_length=40)
    email: str = Field(default="", max_length=254)
    message: str = Field(default="", max_length=1000)


class GiftCardTopUp(BaseModel):
    """PUT /gift-cards/{id}: the C# SDK sends the amount as a string in its culture's format
    (`"10,5"` is possible); the legacy plugin a form field."""

    amount: Decimal = Field(gt=0, le=Decimal("1000000"), max_digits=14, decimal_places=4)

    @field_validator("amount", mode="before")
    @classmethod
    def decimal_comma(cls, value: Any) -> Any:
        if isinstance(value, str) and "," in value and "." not in value:
            return value.replace(",", ".")
        return value


class ActivePackageRef(Wire):
    id: int
    name: str


class ActivePackage(Wire):
    txn_id: str
    date: str
    quantity: int
    package: ActivePackageRef
