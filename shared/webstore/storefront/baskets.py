"""Storefront baskets: create, read, and change (packages, coupons, gift cards, creator codes).

A change is one BatchGetItem (the basket, the store item, and whatever the change names: a
package, a coupon, a gift card, a creator code, a gift recipient; the account is in the ident)
and one put of the whole basket conditioned on its `version`. A concurrent writer makes the
put fail; the change is then redone from a fresh read, a few times, before answering 409.
The only further read is a player's purchase counts (`user_limit`, a coupon's per-player
limit), whose key needs the player id the basket read returns. See docs/baskets.md.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from webstore import keys
from webstore.basket import MAX_LINES, MAX_QUANTITY, Basket, BasketLine, DynamicPackage
from webstore.catalog import Coupon, CreatorCode, GiftCard, Package, PackageType, Store
from webstore.db import Item, from_item, plain_json
from webstore.errors import Conflict, Invalid, NotFound
from webstore.pricing import PricedLine, PricingContext, coupon_refusal, price_basket
from webstore.repo.account import AccountRepository
from webstore.repo.baskets import BasketRepository
from webstore.repo.users import User, UserRepository, check_username
from webstore.services import Services
from webstore.settings import Settings
from webstore.storefront import schemas
from webstore.storefront.catalog import verified
from webstore.storefront.retrying import Contended
from webstore.storefront.return_urls import check_return_url
from webstore.validation import COMMAND_MAP, CallerMap, CommandText

MAX_COUPONS = 5
MAX_GIFTCARDS = 5
MAX_CUSTOM_BYTES = 8 * 1024
MAX_CUSTOM_DEPTH = 8
MAX_URL = 2048
CHECKOUT_CLAIM_TIMEOUT = timedelta(minutes=5)
WRITE_ATTEMPTS = 3
PAID_STATUSES = frozenset({"complete", "refund", "chargeback"})
_EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]+\.[^@\s]+$")
_CODE = Annotated[str, Field(min_length=1, max_length=64)]
_PACKAGE_REF = int | Annotated[str, Field(min_length=1, max_length=64)]
_RECIPIENT = int | Annotated[str, Field(min_length=1, max_length=64)]


# --- requests ------------------------------------------------------------------------------


class Request(BaseModel):
    """Bodies ignore fields they do not know: clients written for the real platform send extras."""

    model_config = ConfigDict(extra="ignore")


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
                Annotated[str, Field(max_length=500)] | int | float | bool,
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


# --- reading and writing a basket ------------------------------------------------------------


@dataclass
class Loaded:
    """What one BatchGetItem returned: the basket, its store, and the extra items found."""

    basket: Basket
    store: Store
    found: dict[tuple[str, str], Item] = field(default_factory=dict)

    def item(self, key: dict[str, str]) -> Item | None:
        return self.found.get((key["PK"], key["SK"]))


def load(services: Services, ident: str, token: str | None, extra: Sequence[dict[str, str]] = ()) -> Loaded:
    """The basket, its store and `extra` items in one round trip. With a token (the routes under
    `{headless_url}`), the basket must belong to that token's store."""
    account_id = keys.account_of(ident, "Basket")
    if token is not None and keys.account_of(token) != account_id:
        raise NotFound("Basket not found")
    basket_key = keys.basket_key(ident)
    store_key = keys.key(keys.store_pk(account_id), keys.STORE_ITEM)
    items = services.table.batch_get([basket_key, store_key, *extra], consistent=True)
    found = {(i["PK"], i["SK"]): i for i in items}
    basket_item = found.pop((basket_key["PK"], basket_key["SK"]), None)
    store_item = found.pop((store_key["PK"], store_key["SK"]), None)
    if store_item is None:
        raise NotFound("Store not found")
    store = from_item(Store, store_item)
    if token is not None:
        verified(store, token)
    if basket_item is None:
        raise NotFound("Basket not found")
    basket = from_item(Basket, basket_item)
    if basket.account_id != account_id:
        raise NotFound("Basket not found")
    return Loaded(basket, store, found)


Change = Callable[[Services, Loaded], None]


def change(
    services: Services, ident: str, token: str | None, apply: Change, extra: Sequence[dict[str, str]] = ()
) -> Basket:
    """Read, apply `apply`, reprice, and write under the version condition; redo on a race."""
    repository = BasketRepository(services.table)
    for attempt in range(1, WRITE_ATTEMPTS + 1):
        loaded = load(services, ident, token, extra)
        basket = loaded.basket
        if basket.complete or basket.payment_status in PAID_STATUSES:
            raise Conflict("This basket is complete and can no longer change; create a new basket")
        if checkout_in_progress(basket, services.now()):
            raise Conflict("This basket is being paid for and cannot change meanwhile")
        apply(services, loaded)
        now = services.now()
        reprice(basket, loaded.store, now)
        basket.updated_at = now
        basket.expires_at = expiry(loaded.store, now)
        try:
            repository.save(basket)
        except Conflict:
            if attempt == WRITE_ATTEMPTS:
                raise Contended() from None
            continue
        return basket
    raise AssertionError("unreachable")


def checkout_in_progress(basket: Basket, now: datetime) -> bool:
    """A payment attempt holds the basket (a claim older than the timeout is abandoned)."""
    started = basket.checkout_started_at
    return bool(basket.checkout_attempt) and started is not None and now - started < CHECKOUT_CLAIM_TIMEOUT


def expiry(store: Store, now: datetime) -> int:
    """Abandoned baskets expire (TTL) a store-set time after their last change."""
    return int(now.timestamp()) + store.basket_ttl_seconds


def priced_lines(basket: Basket) -> list[PricedLine]:
    return [
        PricedLine(line.package_id, line.category_id, line.base_price, line.quantity, line.type, line.dynamic)
        for line in basket.lines
    ]


def reprice(basket: Basket, store: Store, now: datetime) -> None:
    price = price_basket(
        priced_lines(basket),
        PricingContext(store=store, sales=store.sales, now=now),
        coupons=basket.coupons,
        giftcards=[(n, basket.giftcard_balances.get(n, Decimal(0))) for n in basket.giftcards],
        username=basket.username,
    )
    for line, line_price in zip(basket.lines, price.lines, strict=True):
        line.unit_price = line_price.unit_price
        line.line_price = line_price.line_price
    basket.base_price = price.base_price
    basket.discount = price.discount
    basket.sales_tax = price.sales_tax
    basket.total_price = price.total_price
    basket.giftcard_amount = price.giftcard_amount
    basket.giftcard_split = dict(price.giftcards)


def purchases(services: Services, account_id: int, username_id: int) -> Item:
    """A player's purchase counts in a store (kept by fulfilment); {} before their first."""
    key = keys.key(keys.account_pk(account_id), keys.purchases_sk(username_id))
    return services.table.get(key) or {}


# --- create and get ----------------------------------------------------------------------------


def create_basket(services: Services, token: str, request: NewBasket, ip: str) -> Basket:
    """SPEC: an invalid store ID is 422 for this operation (elsewhere an unknown token is 404)."""
    try:
        account_id = keys.account_of(token)
    except NotFound:
        raise Invalid("The store ID is invalid", field="token") from None
    username = check_username(request.username) if request.username is not None else None
    email = check_email(request.email) if request.email is not None else None
    custom = check_custom(request.custom) if request.custom is not None else None
    ip = check_ip(ip)

    store_key = keys.key(keys.store_pk(account_id), keys.STORE_ITEM)
    wanted = [store_key] + ([keys.user_key(username)] if username else [])
    found = {(i["PK"], i["SK"]): i for i in services.table.batch_get(wanted)}
    store_item = found.get((store_key["PK"], store_key["SK"]))
    if store_item is None:
        raise Invalid("The store ID is invalid", field="token")
    store = from_item(Store, store_item)
    try:
        verified(store, token)
    except NotFound:
        raise Invalid("The store ID is invalid", field="token") from None
    if store.disabled:
        raise Invalid("This store is disabled", field="token")
    # The hosted pages redirect to these: only to the store's own site (no open redirect).
    complete_url = (
        check_return_url(store, request.complete_url, "complete_url") if request.complete_url else None
    )
    cancel_url = check_return_url(store, request.cancel_url, "cancel_url") if request.cancel_url else ""
    user = None
    if username:
        user = user_from(found, username) or UserRepository(services.table).ensure(username)

    now = services.now()
    basket = Basket(
        ident=keys.new_basket_ident(account_id),
        account_id=account_id,
        currency=store.currency,
        email=email,
        username=user.username if user else None,
        username_id=user.id if user else None,
        ip=ip,
        cancel_url=cancel_url,
        complete_url=complete_url,
        complete_auto_redirect=request.complete_auto_redirect,
        custom=custom,
        notify_abandoned=store.emit_basket_abandoned,
        created_at=now,
        updated_at=now,
        expires_at=expiry(store, now),
    )
    BasketRepository(services.table).create(basket)
    return basket


def get_basket(services: Services, token: str | None, ident: str) -> Basket:
    """One BatchGetItem: the basket and the store item that proves the token."""
    return load(services, ident, token).basket


def user_from(found: dict[tuple[str, str], Item], username: str) -> User | None:
    key = keys.user_key(username)
    item = found.get((key["PK"], key["SK"]))
    return User(int(item["username_id"]), item["username"], item["uuid"]) if item else None


# --- input checks -----------------------------------------------------------------------------


def check_email(email: str) -> str | None:
    email = email.strip()
    if not email:
        return None
    if not _EMAIL.match(email):
        raise Invalid("email is not an email address", field="email")
    return email


def check_ip(ip: str) -> str:
    try:
        return str(ipaddress.ip_address(ip.strip()))
    except ValueError:
        raise Invalid("ip_address is not an IP address", field="ip_address") from None


def check_custom(custom: dict[str, Any]) -> dict[str, Any]:
    """Caller data rides in the basket item and every webhook: small, JSON, storable."""
    size = len(json.dumps(custom, separators=(",", ":"), ensure_ascii=False).encode())
    if size > MAX_CUSTOM_BYTES:
        raise Invalid(
            f"custom is {size} bytes serialized; at most {MAX_CUSTOM_BYTES} allowed", field="custom"
        )
    _check_json(custom, 1)
    return custom


def _check_json(value: Any, depth: int) -> None:
    if depth > MAX_CUSTOM_DEPTH:
        raise Invalid(f"custom nests deeper than {MAX_CUSTOM_DEPTH} levels", field="custom")
    if isinstance(value, dict):
        for item in value.values():
            _check_json(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_json(item, depth + 1)
    elif isinstance(value, float | int) and not isinstance(value, bool):
        number = Decimal(str(value))
        if not number.is_finite() or (number != 0 and not -130 < number.adjusted() < 126):
            raise Invalid("custom holds a number out of range", field="custom")
        if len(number.as_tuple().digits) > 38:
            raise Invalid("custom holds a number with more than 38 digits", field="custom")


# --- packages ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PackageRef:
    """What a client named: a catalog package (by id or `pkg_` ident) or a basket's `dyn_` one."""

    dynamic: bool | None  # None: a bare number, either kind
    package_id: int
    category_id: int | None = None

    @classmethod
    def parse(cls, value: int | str, field: str = "package_id") -> PackageRef:
        text = str(value).strip()
        if text.isdigit() and 1 <= int(text) <= keys.INT32_MAX:
            return cls(None, int(text))
        parsed = keys.parse_package_ident(text)
        if parsed is None or not 1 <= parsed[2] <= keys.INT32_MAX:
            raise Invalid(f"{field} is neither a package id nor a package ident", field=field)
        return cls(parsed[0] == "dyn", parsed[2], parsed[1])

    def package_key(self, account_id: int) -> dict[str, str] | None:
        if self.dynamic:
            return None
        return keys.key(keys.store_pk(account_id), keys.package_sk(self.package_id))

    def matches(self, line: BasketLine) -> bool:
        if line.package_id != self.package_id:
            return False
        if self.category_id is not None and line.category_id != self.category_id:
            return False
        return self.dynamic is None or line.dynamic == self.dynamic


def recipient_name(value: int | str | None) -> str | None:
    """Gift recipients are named by username: the demo platform identifies players by name."""
    if value is None or str(value).strip() == "":
        return None
    return check_username(str(value), field="target_username_id")


def add_package(services: Services, token: str | None, ident: str, request: AddPackage) -> Basket:
    account_id = keys.account_of(ident, "Basket")
    ref = PackageRef.parse(request.package_id)
    gift_to = recipient_name(request.target_username_id)
    extra = [k for k in (ref.package_key(account_id), keys.user_key(gift_to) if gift_to else None) if k]

    def apply(services: Services, loaded: Loaded) -> None:
        basket, store = loaded.basket, loaded.store
        package = catalog_package(loaded, ref, account_id, services.now())
        line = package_line(package) if package else dynamic_line(basket, ref)
        if request.type is not None and request.type != line.type.value:
            raise Invalid(f"type: this package is sold as {line.type.value}", field="type")
        if request.variable_data:
            line.variable_data = {k: str(v) for k, v in request.variable_data.items()}
        if package:
            check_variables(package, line.variable_data)

        if gift_to and (not basket.username or gift_to.lower() != basket.username.lower()):
            if line.dynamic or (package and package.disable_gifting) or not store.supports_gifting:
                raise Invalid("This package cannot be gifted", field="target_username_id")
            recipient = user_from(loaded.found, gift_to) or UserRepository(services.table).ensure(gift_to)
            line.gift_username_id, line.gift_username = str(recipient.id), recipient.username

        existing = next((x for x in basket.lines if same_line(x, line)), None)
        quantity = request.quantity + (existing.quantity if existing else 0)
        if existing is None and len(basket.lines) >= MAX_LINES:
            raise Invalid(f"A basket holds at most {MAX_LINES} lines", field="package_id")
        if existing is not None:
            if request.variable_data:
                existing.variable_data = line.variable_data
            line = existing
        else:
            basket.lines.append(line)
        set_quantity(services, basket, line, package, quantity)

    return change(services, ident, token, apply, extra)


def catalog_package(loaded: Loaded, ref: PackageRef, account_id: int, now: datetime) -> Package | None:
    """The catalog package `ref` names, or None when it names one of the basket's dynamic ones."""
    key = ref.package_key(account_id)
    item = loaded.item(key) if key else None
    if item is None:
        if ref.dynamic is None and any(d.id == ref.package_id for d in loaded.basket.dynamic_packages):
            return None
        if ref.dynamic:
            return None
        raise NotFound("Package not found")
    package = from_item(Package, item)
    if package.disabled or (ref.category_id is not None and package.category_id != ref.category_id):
        raise NotFound("Package not found")
    if package.expiration_date is not None and now >= package.expiration_date:
        raise Invalid("This package is no longer for sale", field="package_id")
    return package


def package_line(package: Package) -> BasketLine:
    return BasketLine(
        package_id=package.id,
        category_id=package.category_id,
        ident=package.ident,
        name=package.name,
        description=package.description,
        image=package.image,
        slug=package.slug or str(package.id),
        type=package.type,
        base_price=package.price,
    )


def dynamic_line(basket: Basket, ref: PackageRef) -> BasketLine:
    dyn = find_dynamic(basket, ref)
    return BasketLine(
        package_id=dyn.id,
        category_id=dyn.category_id,
        ident=keys.package_ident(dyn.category_id, dyn.id, dynamic=True),
        name=dyn.name,
        description=dyn.description,
        image=dyn.image_url,
        slug=dyn.slug,
        base_price=dyn.price,
        dynamic=True,
    )


def find_dynamic(basket: Basket, ref: PackageRef) -> DynamicPackage:
    for dyn in basket.dynamic_packages:
        if dyn.id == ref.package_id and ref.category_id in (None, dyn.category_id):
            return dyn
    raise NotFound("Package not found")


def check_variables(package: Package, variable_data: dict[str, str]) -> None:
    missing = [v for v in package.variables if not variable_data.get(v, "").strip()]
    if missing:
        raise Invalid(
            f"variable_data.{missing[0]} is required by this package", field=f"variable_data.{missing[0]}"
        )


def same_line(a: BasketLine, b: BasketLine) -> bool:
    """One line per package and recipient (a gift to each player is its own line)."""
    return (a.package_id, a.dynamic, a.gift_username_id) == (b.package_id, b.dynamic, b.gift_username_id)


def set_quantity(
    services: Services, basket: Basket, line: BasketLine, package: Package | None, quantity: int
) -> None:
    """Quantity rules: disable_quantity (and dynamic packages) hold 1; at most MAX_QUANTITY; a
    package's user_limit counts what its recipient has in this basket and has bought before."""
    if line.dynamic or (package and package.disable_quantity):
        quantity = 1
    if quantity > MAX_QUANTITY:
        raise Invalid(f"quantity: at most {MAX_QUANTITY} of one package", field="quantity")
    line.quantity = quantity
    if package is None or not package.user_limit:
        return
    receiver = line.gift_username_id or (str(basket.username_id) if basket.username_id else None)
    in_basket = sum(
        x.quantity
        for x in basket.lines
        if not x.dynamic
        and x.package_id == package.id
        and (x.gift_username_id or (str(basket.username_id) if basket.username_id else None)) == receiver
    )
    bought = 0
    if receiver is not None:
        bought = int(
            purchases(services, basket.account_id, int(receiver)).get(keys.purchased_attribute(package.id), 0)
        )
    if in_basket + bought > package.user_limit:
        left = max(package.user_limit - bought, 0)
        raise Invalid(
            f"quantity: {package.name} is limited to {package.user_limit} per player"
            f" ({left} left for this player)",
            field="quantity",
        )


def matching_lines(basket: Basket, ref: PackageRef, recipient: str | None) -> list[BasketLine]:
    lines = [x for x in basket.lines if ref.matches(x)]
    if recipient is not None:
        lines = [x for x in lines if (x.gift_username or "").lower() == recipient.lower()]
    return lines


def remove_package(services: Services, token: str | None, ident: str, request: RemovePackage) -> Basket:
    """Removes the package's lines (only the gift to `target_username_id` when given)."""
    ref = PackageRef.parse(request.package_id)
    recipient = recipient_name(request.target_username_id)

    def apply(services: Services, loaded: Loaded) -> None:
        gone = matching_lines(loaded.basket, ref, recipient)
        if not gone:
            raise Invalid("This package is not in the basket", field="package_id")
        loaded.basket.lines = [x for x in loaded.basket.lines if all(x is not g for g in gone)]

    return change(services, ident, token, apply)


def update_quantity(
    services: Services, token: str | None, ident: str, package_id: str, request: PackageQuantity
) -> Basket:
    """Sets one line's quantity (0 removes it), re-reading the package for its current rules."""
    account_id = keys.account_of(ident, "Basket")
    ref = PackageRef.parse(package_id)
    recipient = recipient_name(request.target_username_id)
    extra = [k for k in (ref.package_key(account_id),) if k]

    def apply(services: Services, loaded: Loaded) -> None:
        basket = loaded.basket
        lines = matching_lines(basket, ref, recipient)
        if recipient is None and len(lines) > 1:
            lines = [x for x in lines if x.gift_username_id is None] or lines
        if not lines:
            raise Invalid("This package is not in the basket", field="package_id")
        if len(lines) > 1:
            raise Invalid(
                "The package is in the basket for several players; name one in target_username_id",
                field="target_username_id",
            )
        line = lines[0]
        if request.quantity == 0:
            basket.lines = [x for x in basket.lines if x is not line]
            return
        package = None
        if not line.dynamic:
            item = loaded.item(keys.key(keys.store_pk(account_id), keys.package_sk(line.package_id)))
            if item is None:
                raise NotFound("Package not found")
            package = from_item(Package, item)
            if package.disabled:
                raise Invalid("This package is no longer for sale; remove it", field="package_id")
            line.base_price = package.price
        set_quantity(services, basket, line, package, request.quantity)

    return change(services, ident, token, apply, extra)


# --- coupons, gift cards, creator codes --------------------------------------------------------


def apply_coupon(services: Services, token: str | None, ident: str, code: str) -> Basket:
    account_id = keys.account_of(ident, "Basket")
    code = code.strip()
    key = AccountRepository(services.table).coupon_by_code_key(account_id, code)

    def apply(services: Services, loaded: Loaded) -> None:
        basket = loaded.basket
        item = loaded.item(key)
        if item is None:
            raise Invalid("This coupon code does not exist", field="coupon_code")
        coupon = from_item(Coupon, item)
        others = [c for c in basket.coupons if c.id != coupon.id]
        if len(others) >= MAX_COUPONS:
            raise Invalid(f"A basket takes at most {MAX_COUPONS} coupons", field="coupon_code")
        used_by_player = None
        if coupon.user_limit and basket.username_id:
            uses = keys.key(keys.account_pk(account_id), keys.coupon_use_sk(coupon.id, basket.username_id))
            used_by_player = int((services.table.get(uses) or {}).get("uses", 0))
        reason = coupon_refusal(
            coupon,
            priced_lines(basket),
            PricingContext(store=loaded.store, sales=loaded.store.sales, now=services.now()),
            username=basket.username,
            redemptions=int(item.get(keys.COUPON_REDEMPTIONS, 0)),
            player_redemptions=used_by_player,
        )
        if reason:
            raise Invalid(reason, field="coupon_code")
        basket.coupons = [*others, coupon]

    return change(services, ident, token, apply, [key])


def remove_coupon(services: Services, token: str | None, ident: str, code: str) -> Basket:
    def apply(services: Services, loaded: Loaded) -> None:
        kept = [c for c in loaded.basket.coupons if c.code.upper() != code.strip().upper()]
        if len(kept) == len(loaded.basket.coupons):
            raise Invalid("This coupon is not applied to the basket", field="coupon_code")
        loaded.basket.coupons = kept

    return change(services, ident, token, apply)


def apply_giftcard(services: Services, token: str | None, ident: str, number: str) -> Basket:
    account_id = keys.account_of(ident, "Basket")
    key = AccountRepository(services.table).giftcard_key(account_id, number.strip())

    def apply(services: Services, loaded: Loaded) -> None:
        basket = loaded.basket
        item = loaded.item(key)
        if item is None:
            raise Invalid("This gift card does not exist", field="card_number")
        card = from_item(GiftCard, item)
        if card.void:
            raise Invalid("This gift card is no longer valid", field="card_number")
        if card.expires_at is not None and services.now() >= card.expires_at:
            raise Invalid("This gift card has expired", field="card_number")
        if card.balance <= 0:
            raise Invalid("This gift card has no balance left", field="card_number")
        if card.currency.upper() != basket.currency.upper():
            raise Invalid(
                f"This gift card is in {card.currency.upper()}; the basket is in {basket.currency}",
                field="card_number",
            )
        others = [n for n in basket.giftcards if n.upper() != card.card_number.upper()]
        if len(others) >= MAX_GIFTCARDS:
            raise Invalid(f"A basket takes at most {MAX_GIFTCARDS} gift cards", field="card_number")
        basket.giftcards = [*others, card.card_number]
        basket.giftcard_balances = {
            **{n: b for n, b in basket.giftcard_balances.items() if n in others},
            card.card_number: card.balance,
        }

    return change(services, ident, token, apply, [key])


def remove_giftcard(services: Services, token: str | None, ident: str, number: str) -> Basket:
    def apply(services: Services, loaded: Loaded) -> None:
        basket = loaded.basket
        kept = [n for n in basket.giftcards if n.upper() != number.strip().upper()]
        if len(kept) == len(basket.giftcards):
            raise Invalid("This gift card is not applied to the basket", field="card_number")
        basket.giftcards = kept
        basket.giftcard_balances = {n: b for n, b in basket.giftcard_balances.items() if n in kept}

    return change(services, ident, token, apply)


def apply_creator_code(services: Services, token: str | None, ident: str, code: str) -> Basket:
    """A basket carries one creator code; applying another replaces it. No effect on prices."""
    account_id = keys.account_of(ident, "Basket")
    key = AccountRepository(services.table).creator_code_key(account_id, code.strip())

    def apply(services: Services, loaded: Loaded) -> None:
        item = loaded.item(key)
        if item is None:
            raise Invalid("This creator code does not exist", field="creator_code")
        loaded.basket.creator_code = from_item(CreatorCode, item).code

    return change(services, ident, token, apply, [key])


def remove_creator_code(services: Services, token: str | None, ident: str, code: str) -> Basket:
    def apply(services: Services, loaded: Loaded) -> None:
        current = loaded.basket.creator_code
        if not current or current.upper() != code.strip().upper():
            raise Invalid("This creator code is not applied to the basket", field="creator_code")
        loaded.basket.creator_code = ""

    return change(services, ident, token, apply)


# --- view ---------------------------------------------------------------------------------------


def basket_view(basket: Basket, settings: Settings) -> schemas.Basket:
    paid = basket.payment_status in PAID_STATUSES
    base = f"{settings.storefront_url}/checkout/{basket.ident}"
    return schemas.Basket(
        id=basket.ident,
        ident=basket.ident,
        complete=basket.complete,
        email=basket.email,
        username=basket.username,
        coupons=[schemas.BasketCoupon(code=c.code, coupon_code=c.code) for c in basket.coupons],
        giftcards=[schemas.BasketGiftCard(card_number=n) for n in basket.giftcards],
        creator_code=basket.creator_code,
        cancel_url=basket.cancel_url,
        complete_url=basket.complete_url,
        complete_auto_redirect=basket.complete_auto_redirect,
        country=basket.country,
        ip=basket.ip,
        username_id=basket.username_id,
        base_price=basket.base_price,
        sales_tax=basket.sales_tax,
        total_price=basket.total_price,
        currency=basket.currency,
        packages=[
            schemas.BasketPackage(
                id=line.package_id,
                ident=line.ident,
                description=line.description,
                image=line.image,
                name=line.name,
                slug=line.slug,
                in_basket=schemas.InBasket(
                    quantity=line.quantity,
                    price=line.unit_price,
                    gift_username_id=line.gift_username_id,
                    gift_username=line.gift_username,
                ),
                type=line.type.value,
                revenue_share=[],
                is_recurring=line.type is PackageType.SUBSCRIPTION,
            )
            for line in basket.lines
        ],
        custom=plain_json(basket.custom) if basket.custom is not None else None,
        links=schemas.BasketLinks(payment=f"{base}/receipt") if paid else schemas.BasketLinks(checkout=base),
    )
