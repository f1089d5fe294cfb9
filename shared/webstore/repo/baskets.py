"""Baskets: one item each, written whole under an optimistic `version` condition.

A basket use case reads the basket, its store and whatever the change names (a package, a
code, a gift recipient, a checkout attempt) in ONE BatchGetItem: `read` takes a `BasketReads`
plan and returns a typed `StoreAndBasket`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from pydantic import BaseModel

from webstore import keys
from webstore.basket import Basket
from webstore.catalog import Category, Coupon, CreatorCode, GiftCard, Package, Store
from webstore.db import Item, Table, TransactAction, Transaction, from_item, to_item
from webstore.errors import Conflict, NotFound
from webstore.item_size import check_item_size
from webstore.repo.player_tiers import tier_slot_key
from webstore.repo.shop_theme import Words, words_key, words_of
from webstore.repo.throttle import FailureMark, failure_mark
from webstore.repo.users import RegistryRead, User, resolution_of_item, user_of_item


@dataclass(frozen=True)
class BasketReads:
    """What one read fetches besides the store: the basket, and what a change names."""

    basket: str | None = None  # its ident
    packages: tuple[int, ...] = ()
    category: int | None = None
    coupon_code: str | None = None
    giftcard: str | None = None
    creator_code: str | None = None
    username: str | None = None  # a player in the registry, both modes (buyer, gift recipient)
    checkout_attempt: str | None = None  # the hosted checkout's attempt key
    order: str | None = None  # fulfilment's idempotency key of the basket's order (is it paid?)
    coupon_codes: tuple[str, ...] = ()  # the current definitions of the coupons a basket holds
    giftcard_numbers: tuple[str, ...] = ()  # the gift cards a basket holds, as they are now
    tier_slots: tuple[tuple[int, int], ...] = ()  # (player, category): which tier each holds
    failure_mark: tuple[str, str] | None = None  # (guard scope, caller address): its failure mark
    words: bool = False  # the owner's translation files' copy (a hosted page: ShopWords)


class AttemptStatus(StrEnum):
    PENDING = "pending"
    DECLINED = "declined"
    PAID = "paid"


class CheckoutAttempt(BaseModel):
    """One payment attempt of the hosted checkout, as recorded (repo.checkout_attempts writes it)."""

    status: AttemptStatus = AttemptStatus.PENDING
    reason: str = ""
    transaction_id: str | None = None
    taken_over: str | None = None  # the key of the stale claim this attempt took over


@dataclass(frozen=True)
class RecordedOrder:
    """Fulfilment's record of an order: the payment it made and the attempt that paid it."""

    payment_id: int
    checkout_attempt: str | None


@dataclass
class StoreAndBasket:
    """What one BatchGetItem found: the store, the basket (None when absent or another store's),
    and the named items that exist."""

    store: Store
    basket: Basket | None = None
    packages: dict[int, Package] = field(default_factory=dict)
    category: Category | None = None
    coupon: Coupon | None = None
    coupon_redemptions: int = 0  # by everyone (the coupon's global limit)
    giftcard: GiftCard | None = None
    creator_code: CreatorCode | None = None
    user: User | None = None  # `username` as registered in the store's identity mode (any age)
    registry: RegistryRead | None = None  # `username` in both modes (None: not asked for)
    attempt: CheckoutAttempt | None = None
    order: RecordedOrder | None = None
    coupons: dict[str, Coupon] = field(default_factory=dict)  # by upper-case code (coupon_codes)
    giftcards: dict[str, GiftCard] = field(default_factory=dict)  # by upper-case number (giftcard_numbers)
    tier_slots: dict[tuple[int, int], int] = field(default_factory=dict)  # (player, category) → tier id
    failure_mark: FailureMark | None = None  # the caller's wrong credentials (webstore.failure_guard)
    words: Words = field(default_factory=dict)  # the owner's words, when asked for (`reads.words`)


class BasketRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    def get(self, ident: str, *, consistent: bool = True) -> Basket:
        keys.account_of(ident, "Basket")  # malformed idents never reach the table
        item = self.table.get(keys.basket_key(ident), consistent=consistent)
        if item is None:
            raise NotFound("Basket not found")
        return from_item(Basket, item)

    def of_store(self, account_id: int, ident: str) -> Basket:
        """The basket, if it belongs to the store `account_id` (NotFound otherwise)."""
        basket = self.get(ident)
        if basket.account_id != account_id:
            raise NotFound("Basket not found")
        return basket

    def read(self, account_id: int, reads: BasketReads, *, consistent: bool = True) -> StoreAndBasket:
        """The store of `account_id` and everything `reads` names: one BatchGetItem (strongly
        consistent by default: a conditional write usually follows). NotFound without the store."""
        pk, account = keys.store_pk(account_id), keys.account_pk(account_id)
        wanted: dict[str, dict[str, str]] = {"store": keys.key(pk, keys.STORE_ITEM)}
        if reads.basket:
            keys.account_of(reads.basket, "Basket")  # malformed idents never reach the table
            wanted["basket"] = keys.basket_key(reads.basket)
        for package_id in reads.packages:
            wanted[f"package {package_id}"] = keys.key(pk, keys.package_sk(package_id))
        if reads.category is not None:
            wanted["category"] = keys.key(pk, keys.category_sk(reads.category))
        if reads.coupon_code:
            wanted["coupon"] = keys.key(account, keys.coupon_code_sk(reads.coupon_code))
        if reads.giftcard:
            wanted["giftcard"] = keys.key(account, keys.giftcard_sk(reads.giftcard))
        if reads.creator_code:
            wanted["creator_code"] = keys.key(account, keys.creator_code_sk(reads.creator_code))
        if reads.username:
            wanted["user"] = keys.user_key(reads.username)
            wanted["online user"] = keys.online_name_key(reads.username)
        if reads.basket and reads.checkout_attempt:
            wanted["attempt"] = keys.checkout_attempt_key(reads.basket, reads.checkout_attempt)
        for code in reads.coupon_codes:
            wanted[f"coupon {code.upper()}"] = keys.key(account, keys.coupon_code_sk(code))
        for number in reads.giftcard_numbers:
            wanted[f"giftcard {number.upper()}"] = keys.key(account, keys.giftcard_sk(number))
        for username_id, category_id in reads.tier_slots:
            wanted[f"slot {username_id} {category_id}"] = tier_slot_key(account_id, username_id, category_id)
        if reads.order:
            wanted["order"] = keys.key(account, keys.order_sk(reads.order))
        if reads.failure_mark:
            wanted["failure_mark"] = keys.throttle_key(*reads.failure_mark)
        if reads.words:
            wanted["words"] = words_key(account_id)

        items = {
            (i["PK"], i["SK"]): i for i in self.table.batch_get(list(wanted.values()), consistent=consistent)
        }
        found = {name: items.get((k["PK"], k["SK"])) for name, k in wanted.items()}
        store_item = found["store"]
        if store_item is None:
            raise NotFound("Store not found")
        result = StoreAndBasket(store=from_item(Store, store_item))
        if (item := found.get("basket")) is not None:
            basket = from_item(Basket, item)
            result.basket = basket if basket.account_id == account_id else None
        for package_id in reads.packages:
            if (item := found.get(f"package {package_id}")) is not None:
                result.packages[package_id] = from_item(Package, item)
        if (item := found.get("category")) is not None:
            result.category = from_item(Category, item)
        if (item := found.get("coupon")) is not None:
            result.coupon = from_item(Coupon, item)
            result.coupon_redemptions = int(item.get(keys.COUPON_REDEMPTIONS, 0))
        if (item := found.get("giftcard")) is not None:
            result.giftcard = from_item(GiftCard, item)
        if (item := found.get("creator_code")) is not None:
            result.creator_code = from_item(CreatorCode, item)
        if reads.username:
            offline, online = found.get("user"), found.get("online user")
            result.registry = RegistryRead(
                offline=user_of_item(offline) if offline else None,
                online=resolution_of_item(online) if online else None,
            )
            result.user = result.registry.user_for(result.store, reads.username)
        if (item := found.get("attempt")) is not None:
            result.attempt = from_item(CheckoutAttempt, item)
        for code in reads.coupon_codes:
            if (item := found.get(f"coupon {code.upper()}")) is not None:
                result.coupons[code.upper()] = from_item(Coupon, item)
        for number in reads.giftcard_numbers:
            if (item := found.get(f"giftcard {number.upper()}")) is not None:
                result.giftcards[number.upper()] = from_item(GiftCard, item)
        for slot in reads.tier_slots:
            if (item := found.get(f"slot {slot[0]} {slot[1]}")) is not None:
                result.tier_slots[slot] = int(item["tier_id"])
        if (item := found.get("order")) is not None:
            result.order = RecordedOrder(
                payment_id=int(item["payment_id"]),
                checkout_attempt=item.get("checkout_attempt"),
            )
        result.failure_mark = failure_mark(found.get("failure_mark"))
        if reads.words:
            result.words = words_of(found.get("words"))
        return result

    # --- what basket limits check: a player's history in a store (fulfilment keeps it) ---

    def purchased(self, account_id: int, username_id: int, package_id: int) -> int:
        """How many of a package the player has bought in this store (user_limit): one GetItem."""
        item = self.table.get(keys.key(keys.account_pk(account_id), keys.purchases_sk(username_id)))
        return int((item or {}).get(keys.purchased_attribute(package_id), 0))

    def coupon_uses(self, account_id: int, coupon_id: int, username_id: int) -> int:
        """How often the player redeemed a coupon (its per-player limit): one GetItem."""
        item = self.table.get(
            keys.key(keys.account_pk(account_id), keys.coupon_use_sk(coupon_id, username_id))
        )
        return int((item or {}).get("uses", 0))

    # --- writes ---

    @staticmethod
    def item(basket: Basket) -> Item:
        key = keys.basket_key(basket.ident)
        item = to_item(basket, key["PK"], key["SK"], "basket")
        if basket.expires_at is None:
            item.pop("expires_at", None)
        check_item_size(
            item, what="The basket", field="basket", hint="remove packages or shorten their variable_data"
        )
        return item

    def create(self, basket: Basket) -> None:
        self.table.put(self.item(basket), condition="attribute_not_exists(PK)")

    def add_create(self, tx: Transaction, basket: Basket) -> None:
        """`create` as an action of the caller's transaction (with a first-seen player's registration)."""
        tx.put(self.item(basket), condition="attribute_not_exists(PK)")

    def add_save(self, tx: Transaction, basket: Basket) -> None:
        """`save` as an action of the caller's transaction; `basket.version` is advanced (the
        caller reads the basket again if the transaction fails)."""
        expected = basket.version
        basket.version = expected + 1
        tx.put(
            self.item(basket),
            condition="#v = :v",
            names={"#v": "version"},
            values={":v": expected},
            fails=Conflict("The basket changed meanwhile; try again"),
        )

    def save_action(self, basket: Basket) -> TransactAction:
        """Write `basket` as version+1 if nobody wrote it since it was read (for transactions)."""
        expected = basket.version
        basket.version = expected + 1
        return TransactAction.put(
            self.item(basket), condition="#v = :v", names={"#v": "version"}, values={":v": expected}
        )

    def save(self, basket: Basket) -> None:
        """Write `basket` as version+1; Conflict if it changed since it was read."""
        expected = basket.version
        basket.version = expected + 1
        try:
            self.table.put(
                self.item(basket),
                condition="#v = :v",
                names={"#v": "version"},
                values={":v": expected},
                fails=Conflict("The basket changed meanwhile; try again"),
            )
        except Exception:
            basket.version = expected
            raise
