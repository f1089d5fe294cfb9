"""The basket aggregate: one item holding its lines, applied codes and dynamic packages.

A basket is read and written whole (one GetItem, one conditional write on `version`), so it
never shows half an update and two concurrent writers cannot lose each other's change.
Prices are computed at write time (the catalog is read then) and stored with the basket.

Every change is a method here: pure (no I/O), given what it needs (the package, the store,
the player's history, `now`), raising a domain error naming the field when refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Annotated, Any

from pydantic import Field

from webstore import calendar, keys, record_size
from webstore.basket_pricing import PricedLine, coupon_refusal, price_basket
from webstore.catalog import (
    Amount,
    Coupon,
    CreatorCode,
    GiftCard,
    Model,
    Package,
    PackageType,
    Store,
    TaxCalculation,
)
from webstore.domain.payment_status import PaymentStatus
from webstore.errors import Conflict, Invalid, NotFound
from webstore.players import Tier
from webstore.pricing import PricingContext, prorate_price
from webstore.tax import manual as manual_tax
from webstore.tax import vat_ids
from webstore.tax.evidence import country_taxed
from webstore.tax.model import BuyerTax, TaxQuote
from webstore.validation import MAX_QUANTITY

MAX_LINES = 100
MAX_COUPONS = 5
MAX_GIFTCARDS = 5
MAX_DYNAMIC_PACKAGES = 100
MAX_DYNAMIC_BYTES = 200_000  # all of a basket's dynamic packages, as JSON (the item limit is 400 KB)
DYNAMIC_IDS_PER_WRITE = 64
CHECKOUT_CLAIM_TIMEOUT = timedelta(minutes=5)
PAID_STATUSES = frozenset(PaymentStatus.stored())  # a recorded payment, whatever became of it

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
    # What one unit adds to the payment's record (record_size.unit_bytes), kept from the
    # package when the line is added or changed: the basket's record bound needs every line's.
    unit_record_bytes: int = 0
    # A subscription's billing period, kept from the package (the checkout shows the renewal).
    expiry_length: int = 0
    expiry_period: calendar.Period = "month"

    @property
    def record_bytes(self) -> int:
        return record_size.line_bytes(self.unit_record_bytes, self.quantity, self.variable_data)

    @classmethod
    def of_package(cls, package: Package) -> BasketLine:
        return cls(
            package_id=package.id,
            category_id=package.category_id,
            ident=package.ident,
            name=package.name,
            description=package.description,
            image=package.image,
            slug=package.slug or str(package.id),
            type=package.type,
            base_price=package.price,
            expiry_length=package.expiry_length,
            expiry_period=package.expiry_period,
        )

    def same_line(self, other: BasketLine) -> bool:
        """One line per package and recipient (a gift to each player is its own line)."""
        return (self.package_id, self.dynamic, self.gift_username_id) == (
            other.package_id,
            other.dynamic,
            other.gift_username_id,
        )


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

    def line(self) -> BasketLine:
        return BasketLine(
            package_id=self.id,
            category_id=self.category_id,
            ident=keys.package_ident(self.category_id, self.id, dynamic=True),
            name=self.name,
            description=self.description,
            image=self.image_url,
            slug=self.slug,
            base_price=self.price,
            dynamic=True,
        )


@dataclass(frozen=True)
class PackageRef:
    """What a client named: a catalog package (by id or `pkg_` ident) or a basket's `dyn_` one."""

    dynamic: bool | None  # None: a bare number, either kind
    package_id: int
    category_id: int | None = None

    @classmethod
    def parse(cls, value: int | str, field: str = "package_id") -> PackageRef:
        text = str(value).strip()
        if text.isascii() and text.isdigit() and 1 <= int(text) <= keys.INT32_MAX:
            return cls(None, int(text))
        parsed = keys.parse_package_ident(text)
        if parsed is None or not 1 <= parsed[2] <= keys.INT32_MAX:
            raise Invalid(f"{field} is neither a package id nor a package ident", field=field)
        return cls(parsed[0] == "dyn", parsed[2], parsed[1])

    @property
    def catalog_ids(self) -> tuple[int, ...]:
        """The catalog package to read for it (none for a `dyn_` ident)."""
        return () if self.dynamic else (self.package_id,)

    def matches(self, line: BasketLine) -> bool:
        if line.package_id != self.package_id:
            return False
        if self.category_id is not None and line.category_id != self.category_id:
            return False
        return self.dynamic is None or line.dynamic == self.dynamic


@dataclass
class NewLine:
    """A line a client asked to add, checked against the catalog; `package` None for dynamic."""

    line: BasketLine
    package: Package | None
    gift_to: str | None  # a recipient other than the basket's player, still to be resolved


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
    # The buyer's country evidence, VAT ID and the tax quote the prices hold (webstore.tax).
    buyer_tax: BuyerTax = Field(default_factory=BuyerTax)
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

    # --- state ---

    @property
    def paid(self) -> bool:
        return self.payment_status in PAID_STATUSES

    def checkout_in_progress(self, now: datetime) -> bool:
        """A payment attempt holds the basket (a claim older than the timeout is abandoned)."""
        started = self.checkout_started_at
        return bool(self.checkout_attempt) and started is not None and now - started < CHECKOUT_CLAIM_TIMEOUT

    def check_changeable(self, now: datetime) -> None:
        if self.complete or self.paid:
            raise Conflict("This basket is complete and can no longer change; create a new basket")
        if self.checkout_in_progress(now):
            raise Conflict("This basket is being paid for and cannot change meanwhile")

    def priced_lines(self) -> list[PricedLine]:
        return [
            PricedLine(
                line.package_id, line.category_id, line.base_price, line.quantity, line.type, line.dynamic
            )
            for line in self.lines
        ]

    def reprice(self, store: Store, now: datetime) -> None:
        """Prices of the lines and totals, from the store's sales, the applied codes and (unless
        the store's tax is flat) the tax of each line for the buyer's country."""
        settings = store.tax
        line_taxes = None
        if settings.calculation is not TaxCalculation.FLAT:

            def line_taxes(amounts: list[Decimal]) -> list[Decimal]:
                quote = self.tax_quote(store, amounts)
                self.buyer_tax.quote = quote
                return [line.tax for line in quote.lines] if quote else [Decimal(0)] * len(amounts)

        price = price_basket(
            self.priced_lines(),
            PricingContext(store=store, sales=store.sales, now=now),
            coupons=self.coupons,
            giftcards=[(n, self.giftcard_balances.get(n, Decimal(0))) for n in self.giftcards],
            username=self.username,
            line_taxes=line_taxes,
        )
        for line, line_price in zip(self.lines, price.lines, strict=True):
            line.unit_price = line_price.unit_price
            line.line_price = line_price.line_price
        self.base_price = price.base_price
        self.discount = price.discount
        self.sales_tax = price.sales_tax
        self.total_price = price.total_price
        self.giftcard_amount = price.giftcard_amount
        self.giftcard_split = dict(price.giftcards)

    # --- tax ---

    @property
    def tax_country(self) -> str:
        """The country the basket is taxed for (billing, else the client address's); "" when
        neither is known yet (the store's origin country stands in: `taxed_country`)."""
        return country_taxed(self.buyer_tax.billing_country, self.buyer_tax.ip_country, None)

    def taxed_country(self, store: Store) -> str:
        buyer = self.buyer_tax
        return country_taxed(buyer.billing_country, buyer.ip_country, store.tax.origin_country)

    def reverse_charge(self, store: Store) -> bool:
        buyer = self.buyer_tax
        if not buyer.vat_id or not store.tax.reverse_charge:
            return False
        return vat_ids.reverse_charge(
            buyer.vat_id[:2].replace("EL", "GR"),
            self.taxed_country(store),
            store.tax.origin_country,
            buyer.vat_id_status,
        )

    def tax_quote(self, store: Store, amounts: list[Decimal]) -> TaxQuote | None:
        """The tax of the line amounts: the manual table's (pure), or Stripe Tax's quote kept
        with the basket while it still fits the amounts and the buyer (None: to be calculated,
        `tax_pending`)."""
        settings = store.tax
        country = self.taxed_country(store)
        postal = self.buyer_tax.billing_postal_code
        if settings.calculation is TaxCalculation.STRIPE_TAX and settings.charged:
            kept = self.buyer_tax.quote
            fits = kept is not None and kept.fits(amounts, country, postal, settings.inclusive)
            return kept if fits else None
        return manual_tax.quote(
            settings,
            amounts,
            country=country,
            currency=self.currency,
            postal_code=postal,
            reverse_charge=self.reverse_charge(store),
        )

    def tax_pending(self, store: Store) -> bool:
        """Stripe Tax has not priced these lines for this buyer yet (the checkout asks it)."""
        settings = store.tax
        return (
            settings.calculation is TaxCalculation.STRIPE_TAX
            and settings.charged
            and bool(self.lines)
            and self.buyer_tax.quote is None
        )

    def changed(self, store: Store, now: datetime) -> None:
        """After a change: new prices, and the abandonment clock (TTL) starts again."""
        self.reprice(store, now)
        self.updated_at = now
        self.expires_at = expiry(store, now)

    # --- packages ---

    def new_line(
        self,
        ref: PackageRef,
        catalog: dict[int, Package],
        store: Store,
        now: datetime,
        *,
        sold_as: str | None = None,
        variable_data: dict[str, Any] | None = None,
        gift_to: str | None = None,
    ) -> NewLine:
        """The line `ref` names, checked: for sale, of the type asked, its variables given, and
        giftable when it is for another player (`gift_to`, whose id `NewLine.for_recipient` sets)."""
        package = self._catalog_package(ref, catalog, now)
        line = BasketLine.of_package(package) if package else self._dynamic(ref).line()
        if sold_as is not None and sold_as != line.type.value:
            raise Invalid(f"type: this package is sold as {line.type.value}", field="type")
        if variable_data:
            # null is "not chosen" (a shop's dropdown left empty sends it): required, below.
            line.variable_data = {k: str(v) for k, v in variable_data.items() if v is not None}
        if package:
            missing = [v for v in package.variables if not line.variable_data.get(v, "").strip()]
            if missing:
                raise Invalid(
                    f"variable_data.{missing[0]} is required by this package",
                    field=f"variable_data.{missing[0]}",
                )
            for name, options in package.variable_options.items():
                value = package.variable_value(name, line.variable_data[name])
                if value is None:
                    choices = ", ".join(option.value for option in options)
                    raise Invalid(
                        f"variable_data.{name} must be one of: {choices} (or an option's id)",
                        field=f"variable_data.{name}",
                    )
                line.variable_data[name] = value
            line.unit_record_bytes = record_size.unit_bytes(package, line.variable_data)
        if gift_to and self.username and gift_to.lower() == self.username.lower():
            gift_to = None  # a gift to oneself is one's own line
        if gift_to and (line.dynamic or (package and package.disable_gifting) or not store.supports_gifting):
            raise Invalid("This package cannot be gifted", field="target_username_id")
        return NewLine(line, package, gift_to)

    def add_line(self, new: NewLine, quantity: int, *, bought: int = 0) -> None:
        """Add `quantity` of the line (to the same package's line for the same recipient, if
        any). `bought`: what its recipient bought of the package before (user_limit)."""
        line = new.line
        existing = next((x for x in self.lines if x.same_line(line)), None)
        total = quantity + (existing.quantity if existing else 0)
        if existing is None and len(self.lines) >= MAX_LINES:
            raise Invalid(f"A basket holds at most {MAX_LINES} lines", field="package_id")
        if existing is not None:
            if line.variable_data:
                existing.variable_data = line.variable_data
            existing.unit_record_bytes = line.unit_record_bytes
            line = existing
        else:
            self.lines.append(line)
        self.set_quantity(line, new.package, total, bought=bought)

    def receiver_id(self, line: BasketLine) -> int | None:
        """Whose the line is: the gift's recipient, else the basket's player (if known)."""
        if line.gift_username_id:
            return int(line.gift_username_id)
        return self.username_id

    def set_quantity(
        self, line: BasketLine, package: Package | None, quantity: int, *, bought: int = 0
    ) -> None:
        """Quantity rules: disable_quantity (and dynamic packages) hold 1; at most MAX_QUANTITY; a
        package's user_limit counts what its recipient has in this basket and `bought` before."""
        if line.dynamic or (package and package.disable_quantity):
            quantity = 1
        if quantity > MAX_QUANTITY:
            raise Invalid(f"quantity: at most {MAX_QUANTITY} of one package", field="quantity")
        line.quantity = quantity
        self._check_record_size(line)
        if package is None or not package.user_limit:
            return
        receiver = self.receiver_id(line)
        in_basket = sum(
            x.quantity
            for x in self.lines
            if not x.dynamic and x.package_id == package.id and self.receiver_id(x) == receiver
        )
        bought = bought if receiver is not None else 0
        if in_basket + bought > package.user_limit:
            left = max(package.user_limit - bought, 0)
            raise Invalid(
                f"quantity: {package.name} is limited to {package.user_limit} per player"
                f" ({left} left for this player)",
                field="quantity",
            )

    def as_sold_now(
        self,
        packages: Mapping[int, Package],
        coupons: Mapping[str, Coupon],
        now: datetime,
        tiers: Mapping[tuple[int, int], Tier] | None = None,
        giftcards: Mapping[str, GiftCard] | None = None,
    ) -> None:
        """Before paying: the basket as the store sells it now. Its packages at their current
        price and rules (a disabled, removed or expired one refuses the payment, naming it),
        its coupons by their current definition (a deleted one refuses), each package's
        user_limit across all of a player's lines, and an order size that can be recorded.
        `tiers`: the receiving players' ongoing tiers in tiered categories, by (player,
        category): an upgrade from one costs its prorated difference (the storefront's
        `prorate_price`), not the package's full price. `giftcards`: the cards the basket holds as
        they are now, by upper-case number: each counts for what it still covers (its balance
        when applied may have been spent by another basket since; a card gone, void or expired
        covers nothing), so the amount due is one the payment can be recorded with."""
        if giftcards is not None:
            self.giftcard_balances = {
                number: _usable_balance(giftcards.get(number.upper()), self.currency, now)
                for number in self.giftcards
            }
        for line in self.lines:
            if line.dynamic:
                continue
            package = packages.get(line.package_id)
            expired = (
                package is not None and package.expiration_date is not None and now >= package.expiration_date
            )
            if package is None or package.disabled or expired:
                raise Invalid(
                    f"{line.name} is no longer for sale; remove it from your basket", field="package_id"
                )
            line.base_price, line.type = package.price, package.type
            line.expiry_length, line.expiry_period = package.expiry_length, package.expiry_period
            line.unit_record_bytes = record_size.unit_bytes(package, line.variable_data)
            receiver = self.receiver_id(line)
            tier = (tiers or {}).get((receiver, line.category_id)) if receiver is not None else None
            if tier is not None and package.type is PackageType.SUBSCRIPTION:
                line.base_price = upgrade_price(tier, package, packages, self.currency, now)
        given: dict[tuple[int | None, int], int] = {}
        for line in self.lines:
            if not line.dynamic:
                slot = (self.receiver_id(line), line.package_id)
                given[slot] = given.get(slot, 0) + line.quantity
        for (_receiver, package_id), count in given.items():
            limit = packages[package_id].user_limit
            if limit and count > limit:
                name = packages[package_id].name
                raise Invalid(f"quantity: {name} is limited to {limit} per player", field="quantity")
        if self.record_bytes() > record_size.ORDER_RECORD_BUDGET:
            raise Invalid("This order is too large to record; remove some packages", field="quantity")
        current = []
        for applied in self.coupons:
            found = coupons.get(applied.code.upper())
            if found is None:
                raise Invalid(
                    f"The coupon {applied.code} no longer exists; remove it from your basket",
                    field="coupon_code",
                )
            current.append(found)
        self.coupons = current

    def record_bytes(self) -> int:
        """An upper bound of the payment record this basket's order makes (record_size)."""
        return sum(line.record_bytes for line in self.lines)

    def _check_record_size(self, line: BasketLine) -> None:
        """Every order the basket accepts can be recorded: refuse the quantity that would make
        the payment record too large, naming how many of this line still fit."""
        total = self.record_bytes()
        if total <= record_size.ORDER_RECORD_BUDGET:
            return
        others = total - line.record_bytes
        room = (
            record_size.ORDER_RECORD_BUDGET
            - others
            - line.record_bytes
            + line.unit_record_bytes * line.quantity
        )
        fits = max(room // line.unit_record_bytes, 0) if line.unit_record_bytes else 0
        raise Invalid(
            f"quantity: an order this large cannot be recorded (its package commands would take"
            f" {total} bytes, at most {record_size.ORDER_RECORD_BUDGET}); at most {fits} of this"
            " package fit in this basket",
            field="quantity",
        )

    def matching_lines(self, ref: PackageRef, recipient: str | None) -> list[BasketLine]:
        lines = [x for x in self.lines if ref.matches(x)]
        if recipient is not None:
            lines = [x for x in lines if (x.gift_username or "").lower() == recipient.lower()]
        return lines

    def remove_package(self, ref: PackageRef, recipient: str | None) -> None:
        """Removes the package's lines (only the gift to `recipient` when given)."""
        gone = self.matching_lines(ref, recipient)
        if not gone:
            raise Invalid("This package is not in the basket", field="package_id")
        self.lines = [x for x in self.lines if all(x is not g for g in gone)]

    def line_to_change(self, ref: PackageRef, recipient: str | None) -> BasketLine:
        """The one line a quantity change means: without a recipient, the player's own line."""
        lines = self.matching_lines(ref, recipient)
        if recipient is None and len(lines) > 1:
            lines = [x for x in lines if x.gift_username_id is None] or lines
        if not lines:
            raise Invalid("This package is not in the basket", field="package_id")
        if len(lines) > 1:
            raise Invalid(
                "The package is in the basket for several players; name one in target_username_id",
                field="target_username_id",
            )
        return lines[0]

    def change_quantity(
        self, line: BasketLine, package: Package | None, quantity: int, *, bought: int = 0
    ) -> None:
        """Set a line's quantity (0 removes it) under the package's current rules and price."""
        if quantity == 0:
            self.lines = [x for x in self.lines if x is not line]
            return
        if not line.dynamic:
            if package is None:
                raise NotFound("Package not found")
            if package.disabled:
                raise Invalid("This package is no longer for sale; remove it", field="package_id")
            line.base_price = package.price
            line.expiry_length, line.expiry_period = package.expiry_length, package.expiry_period
            line.unit_record_bytes = record_size.unit_bytes(package, line.variable_data)
        self.set_quantity(line, package, quantity, bought=bought)

    def _catalog_package(self, ref: PackageRef, catalog: dict[int, Package], now: datetime) -> Package | None:
        """The catalog package `ref` names, or None when it names one of the basket's dynamic ones."""
        package = None if ref.dynamic else catalog.get(ref.package_id)
        if package is None:
            if ref.dynamic is None and any(d.id == ref.package_id for d in self.dynamic_packages):
                return None
            if ref.dynamic:
                return None
            raise NotFound("Package not found")
        if package.disabled or (ref.category_id is not None and package.category_id != ref.category_id):
            raise NotFound("Package not found")
        if package.expiration_date is not None and now >= package.expiration_date:
            raise Invalid("This package is no longer for sale", field="package_id")
        return package

    def _dynamic(self, ref: PackageRef) -> DynamicPackage:
        for dyn in self.dynamic_packages:
            if dyn.id == ref.package_id and ref.category_id in (None, dyn.category_id):
                return dyn
        raise NotFound("Package not found")

    # --- coupons, gift cards, creator codes ---

    def apply_coupon(
        self,
        coupon: Coupon | None,
        store: Store,
        now: datetime,
        *,
        redemptions: int = 0,
        player_redemptions: int | None = None,
    ) -> None:
        """Apply the coupon found for the code (None: no such code), if it may be used now."""
        if coupon is None:
            raise Invalid("This coupon code does not exist", field="coupon_code")
        others = [c for c in self.coupons if c.id != coupon.id]
        if len(others) >= MAX_COUPONS:
            raise Invalid(f"A basket takes at most {MAX_COUPONS} coupons", field="coupon_code")
        reason = coupon_refusal(
            coupon,
            self.priced_lines(),
            PricingContext(store=store, sales=store.sales, now=now),
            username=self.username,
            redemptions=redemptions,
            player_redemptions=player_redemptions,
        )
        if reason:
            raise Invalid(reason, field="coupon_code")
        self.coupons = [*others, coupon]

    def remove_coupon(self, code: str) -> None:
        kept = [c for c in self.coupons if c.code.upper() != code.strip().upper()]
        if len(kept) == len(self.coupons):
            raise Invalid("This coupon is not applied to the basket", field="coupon_code")
        self.coupons = kept

    def apply_giftcard(self, card: GiftCard | None, now: datetime) -> None:
        """Apply the card found for the number (None: no such card); its balance counts until
        checkout debits it."""
        if card is None:
            raise Invalid("This gift card does not exist", field="card_number")
        if card.void:
            raise Invalid("This gift card is no longer valid", field="card_number")
        if card.expires_at is not None and now >= card.expires_at:
            raise Invalid("This gift card has expired", field="card_number")
        if card.balance <= 0:
            raise Invalid("This gift card has no balance left", field="card_number")
        if card.currency.upper() != self.currency.upper():
            raise Invalid(
                f"This gift card is in {card.currency.upper()}; the basket is in {self.currency}",
                field="card_number",
            )
        others = [n for n in self.giftcards if n.upper() != card.card_number.upper()]
        if len(others) >= MAX_GIFTCARDS:
            raise Invalid(f"A basket takes at most {MAX_GIFTCARDS} gift cards", field="card_number")
        self.giftcards = [*others, card.card_number]
        self.giftcard_balances = {
            **{n: b for n, b in self.giftcard_balances.items() if n in others},
            card.card_number: card.balance,
        }

    def remove_giftcard(self, number: str) -> None:
        kept = [n for n in self.giftcards if n.upper() != number.strip().upper()]
        if len(kept) == len(self.giftcards):
            raise Invalid("This gift card is not applied to the basket", field="card_number")
        self.giftcards = kept
        self.giftcard_balances = {n: b for n, b in self.giftcard_balances.items() if n in kept}

    def apply_creator_code(self, code: CreatorCode | None) -> None:
        """A basket carries one creator code; applying another replaces it. No effect on prices."""
        if code is None:
            raise Invalid("This creator code does not exist", field="creator_code")
        self.creator_code = code.code

    def remove_creator_code(self, code: str | None) -> None:
        """Remove the basket's creator code; `code` None (no body, as the headless spec declares
        the call) removes whichever is applied."""
        if not self.creator_code or (code is not None and self.creator_code.upper() != code.strip().upper()):
            raise Invalid("This creator code is not applied to the basket", field="creator_code")
        self.creator_code = ""

    # --- the player and their dynamic packages ---

    def check_player(self, username: str, username_id: int | None = None) -> None:
        """A basket belongs to one player: once bound, the same player may authenticate again,
        another may not (the codes, limits and dynamic packages would be someone else's). The
        same player: the same name, or the same id (a Steam player's persona name may change)."""
        if self.username_id is None or username_id == self.username_id:
            return
        if (self.username or "").lower() != username.lower():
            raise Conflict("This basket belongs to another player; start a new basket", field="username")

    def authenticate(self, username_id: int, username: str, now: datetime) -> bool:
        """Bind the basket to the player (see `check_player`); True when that changed it."""
        self.check_player(username, username_id)
        if self.username_id == username_id and self.username == username:
            return False
        self.username, self.username_id, self.updated_at = username, username_id, now
        return True

    def replace_dynamic_packages(
        self, category_id: int, username: str, offers: list[DynamicPackage], now: datetime
    ) -> None:
        """The player's server replaces the basket's packages of one dynamic category.

        Ids are unique within the basket for its whole life: `(version + 1) * 64 + n` (n = 1..),
        so a replaced package's id (and `dyn_` ident) never names a different package later.
        Lines already in the basket keep the name and price they were added with."""
        if self.complete:
            raise Conflict("The basket is complete; its packages can no longer change")
        if self.username_id is None or not self.username:
            raise Invalid(
                "The basket is not authenticated yet: send the player through the basket's auth link first",
                field="username",
            )
        if self.username.lower() != username.lower():
            raise Invalid("username is not the player authenticated on this basket", field="username")
        kept = [d for d in self.dynamic_packages if d.category_id != category_id]
        if len(kept) + len(offers) > MAX_DYNAMIC_PACKAGES:
            raise Invalid(f"A basket holds at most {MAX_DYNAMIC_PACKAGES} dynamic packages", field="packages")
        slugs = [p.slug.lower() for p in offers]
        taken = {d.slug.lower() for d in kept}
        duplicate = next((s for i, s in enumerate(slugs) if s in taken or s in slugs[:i]), None)
        if duplicate is not None:
            raise Invalid(f"slug {duplicate!r} is used twice in this basket", field="packages")
        first_id = (self.version + 1) * DYNAMIC_IDS_PER_WRITE
        if first_id + DYNAMIC_IDS_PER_WRITE > keys.INT32_MAX:
            raise Conflict("This basket has been changed too often; create a new one")
        new = [
            offer.model_copy(update={"id": first_id + n, "category_id": category_id})
            for n, offer in enumerate(offers, start=1)
        ]
        result = kept + new
        size = len(json.dumps([d.model_dump(mode="json") for d in result]))
        if size > MAX_DYNAMIC_BYTES:
            raise Invalid(
                f"The basket's dynamic packages would take {size} bytes; at most {MAX_DYNAMIC_BYTES}",
                field="packages",
            )
        self.dynamic_packages = result
        self.updated_at = now


def upgrade_price(
    tier: Tier, package: Package, packages: Mapping[int, Package], currency: str, now: datetime
) -> Decimal:
    """What `package` costs a player whose tier in its category is on another package: the
    prorated difference for an upgrade (as `prorate_price` shows it), else the full price."""
    current = packages.get(tier.package_id)
    if current is None or current.id == package.id or package.price <= current.price:
        return package.price
    return tier_prorate_price(tier, current, package, currency, now)


def tier_prorate_price(
    tier: Tier, current: Package, package: Package, currency: str, now: datetime
) -> Decimal:
    """What moving `tier` from its `current` package to `package` costs now: the price difference
    for the unused rest of the tier's billing period (0 for a downgrade)."""
    period_end = tier.next_payment_date
    start = (
        calendar.period_start(period_end, current.expiry_length, current.expiry_period)
        if period_end
        else None
    )
    return prorate_price(
        current.price, package.price, now=now, period_start=start, period_end=period_end, currency=currency
    )


def _usable_balance(card: GiftCard | None, currency: str, now: datetime) -> Decimal:
    """What a gift card can still pay of a basket in `currency` (0: gone, void, expired)."""
    if card is None or card.void or (card.expires_at is not None and now >= card.expires_at):
        return Decimal(0)
    if card.currency.upper() != currency.upper():
        return Decimal(0)
    return max(card.balance, Decimal(0))


def expiry(store: Store, now: datetime) -> int:
    """Abandoned baskets expire (TTL) a store-set time after their last change."""
    return int(now.timestamp()) + store.basket_ttl_seconds
