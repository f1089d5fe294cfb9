"""Test-only models of what the plugin clients parse, with their field types, strictly.

Each model mirrors one client's reading of one response (docs/research/client-facts.md): a
response that does not validate would make that client throw. MC = the official plugin SDK,
BX = the legacy BuycraftX plugin, CS = the C# SDK.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    StringConstraints,
    field_validator,
)


class Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


Number = StrictInt | StrictFloat


# --- MC listing (obj/Category, SubCategory, CategoryPackage: getAsX on every key) ---


class McSale(Strict):
    active: StrictBool
    discount: Number


class McListingPackage(Strict):
    id: StrictInt
    order: StrictInt
    name: StrictStr
    price: Number
    image: StrictStr | StrictBool  # getAsString on false is "false"; null crashes
    gui_item: StrictStr
    sale: McSale


class McSubCategory(Strict):
    id: StrictInt
    order: StrictInt
    name: StrictStr
    gui_item: StrictStr
    packages: list[McListingPackage]


class McCategory(McSubCategory):
    only_subcategories: StrictBool
    subcategories: list[McSubCategory]


class McListing(Strict):
    categories: list[McCategory]


# --- checkout link: MC binds `expires` as a Date (ISO or yyyy-MM-dd HH:mm:ss); CS a string ---


class McCheckoutUrl(Strict):
    url: StrictStr
    expires: StrictStr

    @field_validator("expires")
    @classmethod
    def iso(cls, value: str) -> str:
        datetime.fromisoformat(value)
        return value


# --- CS payments page: from/to are non-nullable ints ---


class CsPaginatedPayments(Strict):
    total: StrictInt
    per_page: StrictInt
    current_page: StrictInt
    last_page: StrictInt
    next_page_url: StrictStr | None
    prev_page_url: StrictStr | None
    data: list[dict[str, object]]


# --- gift cards: CS GiftCard (created_at DateTime non-null, expires_at DateTime?), BX BigDecimal ---


class GiftCardBalance(Strict):
    starting: StrictStr
    remaining: StrictStr
    currency: StrictStr

    @field_validator("starting", "remaining")
    @classmethod
    def decimal_string(cls, value: str) -> str:
        float(value)
        return value


class CsGiftCard(Strict):
    id: StrictInt
    code: StrictStr
    balance: GiftCardBalance
    note: StrictStr
    void: StrictBool
    created_at: StrictStr
    expires_at: StrictStr | None

    @field_validator("created_at")
    @classmethod
    def iso(cls, value: str) -> str:
        datetime.fromisoformat(value)
        return value


class CsGiftCardData(Strict):
    data: CsGiftCard


class CsGiftCardList(Strict):
    data: list[CsGiftCard]


# --- CS ActivePackage (GET /player/{id}/packages) ---


class CsActivePackageRef(Strict):
    id: StrictInt
    name: StrictStr


class CsActivePackage(Strict):
    txn_id: StrictStr
    date: StrictStr
    quantity: StrictInt
    package: CsActivePackageRef

    @field_validator("date")
    @classmethod
    def iso(cls, value: str) -> str:
        datetime.fromisoformat(value)
        return value


# --- MC Package.fromJsonObject: every key present, non-null; show_until getAsBoolean ---


class McPackageRef(Strict):
    id: StrictInt
    name: StrictStr


class McPackage(Strict):
    id: StrictInt
    name: StrictStr
    image: StrictStr | StrictBool
    price: Number
    expiry_length: StrictInt
    expiry_period: StrictStr
    type: StrictStr
    category: McPackageRef
    global_limit: StrictInt
    global_limit_period: StrictStr
    user_limit: StrictInt
    user_limit_period: StrictStr
    servers: list[McPackageRef]
    required_packages: list[StrictInt]
    require_any: StrictBool
    create_giftcard: StrictBool
    show_until: StrictBool | StrictInt  # getAsBoolean: null or missing crashes
    gui_item: StrictStr | None
    disabled: StrictBool
    disable_quantity: StrictBool
    custom_price: StrictBool
    choose_server: StrictBool
    limit_expires: StrictBool
    inherit_commands: StrictBool
    variable_giftcard: StrictBool


# --- coupons: MC reads dates with yyyy-MM-dd'T'HH:mm:ssxxx only, non-null; CS int minimum ---

MC_COUPON_DATE = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$"


class McCouponEffective(Strict):
    type: StrictStr
    packages: list[StrictInt]
    categories: list[StrictInt]


class McCouponDiscount(Strict):
    type: StrictStr
    percentage: Number
    value: Number


class McCouponExpire(Strict):
    redeem_unlimited: StrictStr | StrictBool
    expire_never: StrictStr | StrictBool
    limit: StrictInt
    date: Annotated[StrictStr, StringConstraints(pattern=MC_COUPON_DATE)]


class McCoupon(Strict):
    id: StrictInt
    code: StrictStr
    effective: McCouponEffective
    discount: McCouponDiscount
    expire: McCouponExpire
    basket_type: StrictStr
    start_date: Annotated[StrictStr, StringConstraints(pattern=MC_COUPON_DATE)]
    user_limit: StrictInt
    minimum: StrictInt  # CS `int`: 10.0 crashes it
    username: StrictStr
    note: StrictStr


class McCouponData(Strict):
    data: McCoupon


# --- queue and commands: BX accepts only 32 lowercase hex (or null); CS payment is a long ---

BX_UUID = r"^[a-f0-9]{32}$"


class BxQueuedPlayer(Strict):
    id: StrictInt
    name: StrictStr
    uuid: Annotated[StrictStr, StringConstraints(pattern=BX_UUID)] | None


class CsCommand(Strict):
    id: StrictInt
    command: StrictStr
    payment: StrictInt
    package: StrictInt | None
    player: BxQueuedPlayer


class CsOfflineCommands(Strict):
    commands: list[CsCommand]


class BxDuePlayers(Strict):
    players: list[BxQueuedPlayer]


class CsPaymentsPage(CsPaginatedPayments):
    from_: StrictInt = Field(alias="from")
    to: StrictInt
