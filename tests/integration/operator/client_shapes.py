"""Test-only models of what the plugin clients parse, with their field types, strictly.

Each model mirrors one client's reading of one response (docs/research/client-facts.md): a
response that does not validate would make that client throw. MC = the official plugin SDK,
BX = the legacy BuycraftX plugin, CS = the C# SDK.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, StrictBool, StrictFloat, StrictInt, StrictStr, field_validator


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
