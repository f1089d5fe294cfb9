"""The basket use cases over fake repositories: the straight line load → aggregate method →
save, what they read for limits, retries on a lost race, and refusals that write nothing.
(The Lambda handlers over moto are the contract tests: tests/integration/storefront/.)"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from webstore import keys
from webstore.basket import Basket
from webstore.catalog import Coupon, Discount, DiscountType, Effective, Package, Store
from webstore.errors import Conflict, Invalid, NotFound
from webstore.repo.baskets import BasketReads, StoreAndBasket
from webstore.repo.users import User
from webstore.services import Services
from webstore.storefront import basket_read, baskets
from webstore.storefront.requests import AddPackage, PackageQuantity

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
TOKEN = "1-" + "0" * 32


@dataclass
class FakeUsers:
    registered: list[str] = field(default_factory=list)

    def ensure(self, username: str) -> User:
        self.registered.append(username)
        return User(100 + len(self.registered), username, keys.player_uuid(username))


@dataclass
class FakeBaskets:
    """BasketRepository in memory: the read plan, the versioned save, a player's history."""

    store: Store
    packages: dict[int, Package] = field(default_factory=dict)
    coupons: dict[str, Coupon] = field(default_factory=dict)
    users: dict[str, User] = field(default_factory=dict)
    stored: dict[str, Basket] = field(default_factory=dict)
    purchases: dict[tuple[int, int], int] = field(default_factory=dict)  # (player, package) -> count
    coupon_use: dict[tuple[int, int], int] = field(default_factory=dict)  # (coupon, player) -> uses
    directory: FakeUsers = field(default_factory=FakeUsers)  # the platform's player registry
    races: int = 0  # how many of the next saves lose to another writer
    reads: list[BasketReads] = field(default_factory=list)
    history_reads: int = 0
    saves: int = 0

    def read(self, account_id: int, reads: BasketReads, *, consistent: bool = True) -> StoreAndBasket:
        self.reads.append(reads)
        if account_id != self.store.id:
            raise NotFound("Store not found")
        stored = self.stored.get(reads.basket or "")
        return StoreAndBasket(
            store=self.store,
            basket=stored.model_copy(deep=True) if stored and stored.account_id == account_id else None,
            packages={i: self.packages[i] for i in reads.packages if i in self.packages},
            coupon=self.coupons.get((reads.coupon_code or "").upper()),
            user=self.users.get((reads.username or "").lower()),
        )

    def save(self, basket: Basket) -> None:
        if self.races:
            self.races -= 1
            self.stored[basket.ident].version += 1  # someone else wrote it first
        if self.stored[basket.ident].version != basket.version:
            raise Conflict("The basket changed meanwhile; try again")
        basket.version += 1
        self.stored[basket.ident] = basket.model_copy(deep=True)
        self.saves += 1

    def create(self, basket: Basket) -> None:
        self.stored[basket.ident] = basket.model_copy(deep=True)

    def purchased(self, account_id: int, username_id: int, package_id: int) -> int:
        self.history_reads += 1
        return self.purchases.get((username_id, package_id), 0)

    def coupon_uses(self, account_id: int, coupon_id: int, username_id: int) -> int:
        self.history_reads += 1
        return self.coupon_use.get((coupon_id, username_id), 0)


def store() -> Store:
    return Store(id=1, name="Test", created_at=NOW, public_token=TOKEN, checkout_key_hash="x")


def package(package_id: int = 10, **fields: Any) -> Package:
    return Package(
        id=package_id,
        category_id=1,
        name="Sword",
        price=Decimal("5.00"),
        created_at=NOW,
        updated_at=NOW,
        **fields,
    )


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeBaskets]:
    repository = FakeBaskets(store=store(), packages={10: package(), 11: package(11, user_limit=2)})
    monkeypatch.setattr(basket_read, "basket_repository", lambda services: repository)
    directory = repository.directory
    monkeypatch.setattr(baskets, "identify_player", lambda services, store, name: directory.ensure(name))
    yield repository


def services() -> Services:
    return Services(settings=None, table=None, publisher=None, secrets=None, clock=lambda: NOW)  # type: ignore[arg-type]


def seeded(fake: FakeBaskets, **fields: Any) -> str:
    ident = keys.new_basket_ident(1)
    fields.setdefault("expires_at", 0)
    fake.create(Basket(ident=ident, account_id=1, currency="USD", created_at=NOW, updated_at=NOW, **fields))
    return ident


def test_a_change_is_one_read_one_aggregate_change_and_one_save(fake: FakeBaskets) -> None:
    ident = seeded(fake)
    basket = baskets.add_package(services(), TOKEN, ident, AddPackage(package_id=10, quantity=2))
    assert fake.reads == [BasketReads(basket=ident, packages=(10,))]
    assert fake.saves == 1 and fake.history_reads == 0
    stored = fake.stored[ident]
    assert [(x.package_id, x.quantity) for x in stored.lines] == [(10, 2)] and stored.total_price == Decimal(
        "10.00"
    )
    assert stored.version == 1 and stored.expires_at == int(NOW.timestamp()) + store().basket_ttl_seconds
    assert basket == stored


def test_a_limited_package_reads_what_the_player_bought(fake: FakeBaskets) -> None:
    ident = seeded(fake, username="Steve", username_id=7)
    fake.purchases[(7, 11)] = 1
    baskets.add_package(services(), None, ident, AddPackage(package_id=11))
    assert fake.history_reads == 1
    with pytest.raises(Invalid, match="1 left") as refused:
        baskets.update_quantity(services(), None, ident, "11", PackageQuantity(quantity=2))
    assert refused.value.field == "quantity" and fake.saves == 1


def test_an_anonymous_basket_reads_no_history(fake: FakeBaskets) -> None:
    baskets.add_package(services(), None, seeded(fake), AddPackage(package_id=11, quantity=2))
    assert fake.history_reads == 0


def test_a_gift_to_a_new_player_registers_them_and_a_known_one_is_read(fake: FakeBaskets) -> None:
    ident = seeded(fake, username="Steve", username_id=7)
    fake.users["alex"] = User(8, "Alex", keys.player_uuid("Alex"))
    baskets.add_package(services(), None, ident, AddPackage(package_id=10, target_username_id="alex"))
    baskets.add_package(services(), None, ident, AddPackage(package_id=10, target_username_id="Notch"))
    gifts = [(x.gift_username_id, x.gift_username) for x in fake.stored[ident].lines]
    assert gifts == [("8", "Alex"), ("101", "Notch")]
    assert fake.directory.registered == ["Notch"]
    assert fake.reads[-1].username == "Notch"


def test_a_coupons_player_limit_is_read_and_a_refusal_writes_nothing(fake: FakeBaskets) -> None:
    ident = seeded(fake, username="Steve", username_id=7)
    fake.coupons["ONCE"] = Coupon(
        id=3,
        code="ONCE",
        discount=Discount(type=DiscountType.PERCENTAGE, percentage=Decimal(10)),
        effective=Effective(type="cart"),
        user_limit=1,
        created_at=NOW,
    )
    fake.coupon_use[(3, 7)] = 1
    with pytest.raises(Invalid, match="already used"):
        baskets.apply_coupon(services(), None, ident, " once ")
    assert fake.reads == [BasketReads(basket=ident, coupon_code="once")]
    assert fake.history_reads == 1 and fake.saves == 0
    fake.coupon_use.clear()
    baskets.apply_coupon(services(), None, ident, "ONCE")
    assert [c.code for c in fake.stored[ident].coupons] == ["ONCE"]


def test_a_lost_race_is_redone_from_a_fresh_read_and_endless_races_end_in_409(fake: FakeBaskets) -> None:
    ident = seeded(fake)
    fake.races = 2
    baskets.add_package(services(), None, ident, AddPackage(package_id=10))
    assert len(fake.reads) == 3 and fake.saves == 1
    fake.races = 3
    with pytest.raises(Conflict, match="another request"):
        baskets.add_package(services(), None, ident, AddPackage(package_id=10))
    assert [x.quantity for x in fake.stored[ident].lines] == [1]


def test_who_may_change_a_basket(fake: FakeBaskets) -> None:
    other_store = "2-" + "0" * 32
    with pytest.raises(NotFound, match="Basket"):
        baskets.remove_coupon(services(), other_store, seeded(fake), "X")
    with pytest.raises(NotFound, match="Store"):
        baskets.remove_coupon(services(), "1-" + "f" * 32, seeded(fake), "X")
    with pytest.raises(NotFound, match="Basket"):
        baskets.remove_coupon(services(), None, keys.new_basket_ident(1), "X")
    claimed = seeded(fake, checkout_attempt="k" * 16, checkout_started_at=NOW - timedelta(minutes=1))
    with pytest.raises(Conflict, match="being paid for"):
        baskets.apply_giftcard(services(), None, claimed, "GIFT")
    assert fake.saves == 0 and len(fake.reads) == 3  # a foreign token is refused before any read
