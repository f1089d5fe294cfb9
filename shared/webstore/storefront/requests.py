"""The storefront interface's request bodies (SPEC.md, COMPAT.md): what clients send, field for
field; what they read is in `storefront.schemas`. Apart from those so that a route that only
reads (and the shop's pages, which build their variables from the wire views) does not compile
them at its cold start."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from webstore import keys
from webstore.validation import CALLER_MAP, COMMAND_MAP, MAX_QUANTITY, MONEY_INPUT, CallerMap, CommandText

MAX_URL = 2048
MAX_DYNAMIC_PER_REQUEST = 50
MAX_DYNAMIC_PRICE = Decimal(1_000_000)


# --- the bodies ------------------------------------------------------------------------------


class Request(BaseModel):
    """Bodies ignore fields they do not know: clients written for the real platform send extras."""

    model_config = ConfigDict(extra="ignore")


_CODE = Annotated[str, Field(min_length=1, max_length=64)]
_PACKAGE_REF = int | Annotated[str, Field(min_length=1, max_length=64)]
_RECIPIENT = int | Annotated[str, Field(min_length=1, max_length=64)]


class NewBasket(Request):
    complete_url: Annotated[str, Field(max_length=MAX_URL)] | None = None
    cancel_url: Annotated[str, Field(max_length=MAX_URL)] | None = None
    custom: CallerMap | None = None
    complete_auto_redirect: bool = False
    username: Annotated[CommandText, Field(max_length=64)] | None = None
    email: Annotated[str, Field(max_length=254)] | None = None


class AddPackage(Request):
    package_id: _PACKAGE_REF
    quantity: Annotated[int, Field(ge=1, le=MAX_QUANTITY, strict=True)] = 1
    type: Literal["single", "subscription"] | None = None
    variable_data: (
        Annotated[
            dict[
                Annotated[str, Field(max_length=64)],
                # null: a dropdown left unchosen (answered as missing, naming the variable)
                Annotated[str, Field(max_length=500)] | int | float | bool | None,
            ],
            Field(max_length=20),
            COMMAND_MAP,
        ]
        | None
    ) = None
    target_username_id: _RECIPIENT | None = None


class RemovePackage(Request):
    package_id: _PACKAGE_REF
    target_username_id: _RECIPIENT | None = None


class PackageQuantity(Request):
    quantity: Annotated[int, Field(ge=0, le=MAX_QUANTITY, strict=True)]  # 0 removes the line
    target_username_id: _RECIPIENT | None = None


class CouponCode(Request):
    coupon_code: _CODE


class GiftCardNumber(Request):
    card_number: _CODE


class CreatorCodeName(Request):
    creator_code: _CODE


_Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
_CustomKey = Annotated[str, StringConstraints(min_length=1, max_length=40)]
_CustomValue = Annotated[str, StringConstraints(max_length=255)]


class DynamicPackageInput(Request):
    """SPEC's dynamic package input."""

    name: _Text
    price: Annotated[Decimal, MONEY_INPUT, Field(ge=0, le=MAX_DYNAMIC_PRICE, max_digits=14, decimal_places=4)]
    slug: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,119}$")]
    description: Annotated[str, StringConstraints(max_length=2000)] = ""
    image_url: Annotated[str, StringConstraints(max_length=2048)] | None = None
    custom: Annotated[dict[_CustomKey, _CustomValue], Field(max_length=10), CALLER_MAP] = Field(
        default_factory=dict
    )

    @field_validator("image_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value in (None, ""):
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc or any(c.isspace() for c in value):
            raise ValueError("must be an absolute http or https URL")
        return value


class DynamicPackagesRequest(Request):
    # The headless spec has no basket_id (the path names the basket); if sent it must match.
    basket_id: Annotated[str, StringConstraints(min_length=1, max_length=80)] | None = None
    username: Annotated[CommandText, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]
    category_id: Annotated[int, Field(ge=1, le=keys.INT32_MAX)]
    packages: Annotated[list[DynamicPackageInput], Field(max_length=MAX_DYNAMIC_PER_REQUEST)]


class TierChangeRequest(Request):
    package_id: Annotated[int, Field(ge=1, le=keys.INT32_MAX)]
