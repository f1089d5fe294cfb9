"""createDynamicPackage: the shop's server fills a dynamic category for one basket.

Rules (docs/players.md): Basic auth (422 when absent, SPEC; 401 when wrong); the basket must be
authenticated and `username` must be its player; the call REPLACES the basket's packages of that
category (idempotent: the server can re-send its offer after every `basket.authenticated`).
Lines already in the basket keep the name and price they were added with.

Ids are synthetic and unique within the basket for its whole life: `(version + 1) * 64 + n`,
where `version` is the basket version the write is based on and n = 1..50, so a replaced package's
id (and `dyn_{category}_{id}` ident) is never reused for a different package.

Round trips: one BatchGetItem (store, category, basket) + one conditional PutItem (basket version).
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from webstore import keys
from webstore.basket import Basket, DynamicPackage
from webstore.catalog import Category, Store
from webstore.db import from_item
from webstore.errors import Conflict, Invalid, NotFound
from webstore.repo.baskets import BasketRepository
from webstore.services import Services
from webstore.storefront.catalog import verified
from webstore.storefront.credentials import Credentials, check_checkout_credentials, require_present
from webstore.validation import CALLER_MAP, MONEY_INPUT, CommandText

MAX_PER_REQUEST = 50
MAX_PER_BASKET = 100
MAX_STORED_BYTES = 200_000  # all of a basket's dynamic packages, as JSON (the item limit is 400 KB)
IDS_PER_WRITE = 64
MAX_PRICE = Decimal(1_000_000)

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
CustomKey = Annotated[str, StringConstraints(min_length=1, max_length=40)]
CustomValue = Annotated[str, StringConstraints(max_length=255)]


class DynamicPackageInput(BaseModel):
    """SPEC's dynamic package input."""

    model_config = ConfigDict(extra="ignore")

    name: Text
    price: Annotated[Decimal, MONEY_INPUT, Field(ge=0, le=MAX_PRICE, max_digits=14, decimal_places=4)]
    slug: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,119}$")]
    description: Annotated[str, StringConstraints(max_length=2000)] = ""
    image_url: Annotated[str, StringConstraints(max_length=2048)] | None = None
    custom: Annotated[dict[CustomKey, CustomValue], Field(max_length=10), CALLER_MAP] = Field(
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


class DynamicPackagesRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    basket_id: Annotated[str, StringConstraints(min_length=1, max_length=80)]
    username: Annotated[CommandText, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]
    category_id: Annotated[int, Field(ge=1, le=keys.INT32_MAX)]
    packages: Annotated[list[DynamicPackageInput], Field(max_length=MAX_PER_REQUEST)]


def _load(
    services: Services, account_id: int, category_id: int, basket_ident: str
) -> tuple[Store, Category | None, Basket | None]:
    store_pk = keys.store_pk(account_id)
    wanted = {
        "store": keys.key(store_pk, keys.STORE_ITEM),
        "category": keys.key(store_pk, keys.category_sk(category_id)),
        "basket": keys.basket_key(basket_ident),
    }
    items = services.table.batch_get(list(wanted.values()), consistent=True)
    found = {
        name: next((i for i in items if i["PK"] == k["PK"] and i["SK"] == k["SK"]), None)
        for name, k in wanted.items()
    }
    if found["store"] is None:
        raise NotFound("Store not found")
    category = from_item(Category, found["category"]) if found["category"] else None
    basket = from_item(Basket, found["basket"]) if found["basket"] else None
    return from_item(Store, found["store"]), category, basket


def put_dynamic_packages(
    services: Services,
    public_token: str,
    basket_ident: str,
    request: DynamicPackagesRequest,
    credentials: Credentials | None,
) -> str:
    credentials = require_present(credentials, missing_is_invalid=True)
    account_id = keys.account_of(public_token)
    keys.account_of(basket_ident, "Basket")
    store, category, basket = _load(services, account_id, request.category_id, basket_ident)
    verified(store, public_token)
    check_checkout_credentials(store, credentials)
    if basket is None or basket.account_id != account_id:
        raise NotFound("Basket not found")
    if request.basket_id != basket_ident:
        raise Invalid("basket_id must be the basket identifier of the path", field="basket_id")
    if category is None:
        raise Invalid(f"Category {request.category_id} not found", field="category_id")
    if not category.dynamic:
        raise Invalid(f"The category {category.id} is not dynamic", field="category_id")
    if basket.complete:
        raise Conflict("The basket is complete; its packages can no longer change")
    if basket.username_id is None or not basket.username:
        raise Invalid(
            "The basket is not authenticated yet: send the player through the basket's auth link first",
            field="username",
        )
    if basket.username.lower() != request.username.lower():
        raise Invalid("username is not the player authenticated on this basket", field="username")

    basket.dynamic_packages = _replaced(basket, category.id, request.packages)
    basket.updated_at = services.now()
    BasketRepository(services.table).save(basket)
    count = len(request.packages)
    return f"{count} dynamic package{'' if count == 1 else 's'} set for category {category.id}"


def _replaced(basket: Basket, category_id: int, inputs: list[DynamicPackageInput]) -> list[DynamicPackage]:
    kept = [d for d in basket.dynamic_packages if d.category_id != category_id]
    if len(kept) + len(inputs) > MAX_PER_BASKET:
        raise Invalid(f"A basket holds at most {MAX_PER_BASKET} dynamic packages", field="packages")
    slugs = [p.slug.lower() for p in inputs]
    taken = {d.slug.lower() for d in kept}
    duplicate = next((s for i, s in enumerate(slugs) if s in taken or s in slugs[:i]), None)
    if duplicate is not None:
        raise Invalid(f"slug {duplicate!r} is used twice in this basket", field="packages")
    first_id = (basket.version + 1) * IDS_PER_WRITE
    if first_id + IDS_PER_WRITE > keys.INT32_MAX:
        raise Conflict("This basket has been changed too often; create a new one")
    new = [
        DynamicPackage(
            id=first_id + n,
            category_id=category_id,
            name=p.name,
            price=p.price,
            slug=p.slug,
            description=p.description,
            image_url=p.image_url,
            custom=dict(p.custom),
        )
        for n, p in enumerate(inputs, start=1)
    ]
    result = kept + new
    size = len(json.dumps([d.model_dump(mode="json") for d in result]))
    if size > MAX_STORED_BYTES:
        raise Invalid(
            f"The basket's dynamic packages would take {size} bytes; at most {MAX_STORED_BYTES}",
            field="packages",
        )
    return result
