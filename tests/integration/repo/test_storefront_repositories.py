"""The storefront's repository reads against the table: typed models out, one round trip each."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.baskets import seed_basket
from tests.support.demo import DemoStore
from webstore import keys
from webstore.db import Table
from webstore.errors import NotFound
from webstore.repo.baskets import BasketReads, BasketRepository, CheckoutAttempt
from webstore.repo.store import StoreRepository
from webstore.repo.users import UserRepository


@pytest.fixture
def calls(demo: DemoStore, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The names of the DynamoDB calls made through the demo table's client."""
    made: list[str] = []
    client = demo.table.client
    for name in ("get_item", "batch_get_item", "query", "put_item"):
        real = getattr(client, name)
        monkeypatch.setattr(
            client, name, lambda *a, _real=real, _name=name, **k: made.append(_name) or _real(*a, **k)
        )
    yield made


def test_one_batch_read_returns_the_store_basket_and_what_a_change_names(
    demo: DemoStore, calls: list[str]
) -> None:
    UserRepository(demo.table).ensure("Alex")
    basket = seed_basket(demo.table)
    demo.table.update(
        keys.key(keys.account_pk(1), keys.coupon_code_sk("WELCOME10")),
        "SET #r = :n",
        names={"#r": keys.COUPON_REDEMPTIONS},
        values={":n": 3},
    )
    calls.clear()
    read = BasketRepository(demo.table).read(
        1,
        BasketReads(
            basket=basket.ident,
            packages=(10, 999),
            category=4,
            coupon_code="welcome10",
            giftcard="gift-0000-0000-0001",
            creator_code="steve",
            username="alex",
        ),
    )
    assert calls == ["batch_get_item"]
    assert read.store.id == 1 and read.basket is not None and read.basket.ident == basket.ident
    assert set(read.packages) == {10} and read.packages[10].id == 10
    assert read.category is not None and read.category.dynamic
    assert read.coupon is not None and read.coupon.code == "WELCOME10" and read.coupon_redemptions == 3
    assert read.giftcard is not None and read.giftcard.card_number == "GIFT-0000-0000-0001"
    assert read.creator_code is not None and read.creator_code.code == "STEVE"
    assert read.user is not None and read.user.username == "Alex"
    assert read.attempt is None


def test_what_is_not_there_reads_as_none(demo: DemoStore) -> None:
    read = BasketRepository(demo.table).read(
        1, BasketReads(basket=keys.new_basket_ident(1), coupon_code="NOPE", username="nobody_yet")
    )
    assert (read.basket, read.coupon, read.user, read.coupon_redemptions) == (None, None, None, 0)


def test_a_basket_of_another_store_reads_as_none(demo: DemoStore) -> None:
    foreign = seed_basket(demo.table, account_id=2)
    assert BasketRepository(demo.table).read(1, BasketReads(basket=foreign.ident)).basket is None
    with pytest.raises(NotFound, match="Basket"):
        BasketRepository(demo.table).of_store(1, foreign.ident)


def test_without_the_store_the_read_is_not_found(table: Table) -> None:
    with pytest.raises(NotFound, match="Store"):
        BasketRepository(table).read(7, BasketReads())


def test_a_checkout_attempt_is_read_typed(demo: DemoStore) -> None:
    basket = seed_basket(demo.table)
    demo.table.put(
        {
            **keys.checkout_attempt_key(basket.ident, "k" * 16),
            "entity": "checkout_attempt",
            "status": "declined",
            "reason": "Card declined",
        }
    )
    read = BasketRepository(demo.table).read(1, BasketReads(basket=basket.ident, checkout_attempt="k" * 16))
    assert read.attempt == CheckoutAttempt(status="declined", reason="Card declined")


def test_a_players_history_counts(demo: DemoStore) -> None:
    repository = BasketRepository(demo.table)
    assert repository.purchased(1, 42, 10) == 0 and repository.coupon_uses(1, 1, 42) == 0
    demo.table.put({**keys.key(keys.account_pk(1), keys.purchases_sk(42)), keys.purchased_attribute(10): 2})
    demo.table.put({**keys.key(keys.account_pk(1), keys.coupon_use_sk(1, 42)), "uses": 1})
    assert repository.purchased(1, 42, 10) == 2 and repository.purchased(1, 42, 11) == 0
    assert repository.coupon_uses(1, 1, 42) == 1


def test_packages_by_id_are_one_batch_read_and_none_for_no_ids(demo: DemoStore, calls: list[str]) -> None:
    repository = StoreRepository(demo.table)
    calls.clear()
    assert repository.packages(1, set()) == {}
    assert calls == []
    found = repository.packages(1, {10, 11, 999})
    assert sorted(found) == [10, 11] and calls == ["batch_get_item"]
