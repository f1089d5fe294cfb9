"""Coupons, gift cards and creator codes on baskets, through their Lambda handlers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from functions.storefront import (
    apply_coupon,
    apply_creator_code,
    apply_giftcard,
    get_basket,
    remove_coupon,
    remove_creator_code,
    remove_giftcard,
    update_basket_package_quantity,
)
from tests.integration.storefront.support import add, assert_error, base, create
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from webstore import keys
from webstore.catalog import Coupon, Discount, DiscountType, Effective, GiftCard
from webstore.repo.account import AccountRepository
from webstore.repo.baskets import BasketRepository

OPERATIONS = {
    "coupons": (apply_coupon.handler, remove_coupon.handler, "coupon_code", "Coupon"),
    "giftcards": (apply_giftcard.handler, remove_giftcard.handler, "card_number", "Gift card"),
    "creator-codes": (
        apply_creator_code.handler,
        remove_creator_code.handler,
        "creator_code",
        "Creator code",
    ),
}
VALID = {"coupons": "WELCOME10", "giftcards": "GIFT-0000-0000-0001", "creator-codes": "STEVE"}


def code(
    invoke: Invoke, ident: str, kind: str, value: str, prefix: str = "/api", *, remove: bool = False
) -> Response:
    apply_handler, remove_handler, field, _ = OPERATIONS[kind]
    suffix = "/remove" if remove else ""
    return invoke(
        remove_handler if remove else apply_handler,
        "POST",
        f"{prefix}/baskets/{ident}/{kind}{suffix}",
        body={field: value},
    )


def basket(demo: DemoStore, invoke: Invoke, ident: str) -> dict[str, Any]:
    data: dict[str, Any] = invoke(get_basket.handler, "GET", f"{base(demo)}/baskets/{ident}").json()["data"]
    return data


@pytest.mark.parametrize("kind", list(OPERATIONS))
@pytest.mark.parametrize("with_token", [True, False])
def test_apply_and_remove_with_and_without_token(
    demo: DemoStore, invoke: Invoke, kind: str, with_token: bool
) -> None:
    ident = create(demo, invoke)["ident"]
    add(invoke, ident, package_id=10)
    prefix = base(demo) if with_token else "/api"
    noun = OPERATIONS[kind][3]
    applied = code(invoke, ident, kind, VALID[kind].lower(), prefix)
    assert applied.status == 200, applied.body
    assert applied.json() == {"success": True, "message": f"{noun} applied successfully"}
    assert applied.headers["content-type"] == "application/json"
    removed = code(invoke, ident, kind, VALID[kind], prefix, remove=True)
    assert removed.json() == {"success": True, "message": f"{noun} removed successfully"}
    again = code(invoke, ident, kind, VALID[kind], prefix, remove=True)
    assert_error(again, 422, OPERATIONS[kind][2], "not applied")


@pytest.mark.parametrize("kind", list(OPERATIONS))
def test_unknown_codes_are_422_naming_the_field(demo: DemoStore, invoke: Invoke, kind: str) -> None:
    ident = create(demo, invoke)["ident"]
    assert_error(code(invoke, ident, kind, "NOPE-NOPE"), 422, OPERATIONS[kind][2], "does not exist")
    assert_error(code(invoke, ident, kind, ""), 422, OPERATIONS[kind][2])
    assert_error(code(invoke, ident, kind, "x" * 65), 422, OPERATIONS[kind][2])


@pytest.mark.parametrize("kind", list(OPERATIONS))
def test_codes_on_missing_foreign_or_completed_baskets(demo: DemoStore, invoke: Invoke, kind: str) -> None:
    assert_error(code(invoke, "1-" + "0" * 32, kind, VALID[kind]), 404, None, "Basket not found")
    ident = create(demo, invoke)["ident"]
    wrong_store = "/api/accounts/2-" + "0" * 32
    assert_error(code(invoke, ident, kind, VALID[kind], wrong_store), 404, None, "Basket not found")
    repository = BasketRepository(demo.table)
    stored = repository.get(ident)
    stored.complete = True
    repository.save(stored)
    assert_error(code(invoke, ident, kind, VALID[kind]), 409)


# --- coupons ----------------------------------------------------------------------------------


def test_coupon_prices_the_basket_and_shows_both_keys(demo: DemoStore, invoke: Invoke) -> None:
    ident = create(demo, invoke)["ident"]
    add(invoke, ident, package_id=10, quantity=2)  # 5.00
    code(invoke, ident, "coupons", "SWORD1")  # 1.00 off each sword (method 0)
    data = basket(demo, invoke, ident)
    assert data["coupons"] == [{"code": "SWORD1", "coupon_code": "SWORD1"}]
    assert data["packages"][0]["in_basket"]["price"] == 1.5
    assert data["total_price"] == 3.0
    code(invoke, ident, "coupons", "WELCOME10")  # then 10% of each package
    assert basket(demo, invoke, ident)["total_price"] == 2.7
    code(invoke, ident, "coupons", "SWORD1", remove=True)
    assert basket(demo, invoke, ident)["total_price"] == 4.5


def test_minimum_coupon_and_what_happens_when_the_basket_shrinks(demo: DemoStore, invoke: Invoke) -> None:
    ident = create(demo, invoke)["ident"]
    add(invoke, ident, package_id=10, quantity=4)  # 10.00
    assert_error(code(invoke, ident, "coupons", "BIG5"), 422, "coupon_code", "at least 20.00 USD")
    add(invoke, ident, package_id=10, quantity=4)  # 20.00
    assert code(invoke, ident, "coupons", "BIG5").status == 200
    assert basket(demo, invoke, ident)["total_price"] == 15.0
    data = add(invoke, ident, package_id=10, quantity=1).json()["data"]
    assert data["total_price"] == 17.5
    data = invoke(
        update_basket_package_quantity.handler,
        "PUT",
        f"/api/baskets/{ident}/packages/10",
        body={"quantity": 2},
    ).json()["data"]
    assert data["coupons"] == [{"code": "BIG5", "coupon_code": "BIG5"}]  # kept, but takes nothing now
    assert data["total_price"] == 5.0


def put_coupon(demo: DemoStore, **fields: Any) -> Coupon:
    coupon = Coupon(
        id=1,  # the created coupon takes the next id
        code=fields.pop("code", "TEST"),
        discount=Discount(type=DiscountType.PERCENTAGE, percentage=Decimal(50)),
        effective=Effective(type="cart"),
        created_at=datetime(2024, 1, 1, tzinfo=UTC),
        **fields,
    )
    return AccountRepository(demo.table).create_coupon(
        1, lambda coupon_id: coupon.model_copy(update={"id": coupon_id})
    )


NOW = datetime.now(UTC)


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"start_date": NOW + timedelta(days=2)}, "not valid yet"),
        ({"expire_never": False, "expire_date": NOW - timedelta(days=1)}, "expired"),
        ({"basket_type": "subscription"}, "subscriptions only"),
        ({"username": "jeb_"}, "another player"),
        ({"redeem_unlimited": False, "expire_limit": 2}, "redemption limit"),
        ({"user_limit": 1}, "as often as it allows"),
    ],
)
def test_coupon_refusals(demo: DemoStore, invoke: Invoke, fields: dict[str, Any], reason: str) -> None:
    player = create(demo, invoke, username="Notch")
    ident = player["ident"]
    add(invoke, ident, package_id=10)
    coupon = put_coupon(demo, **fields)
    pk = keys.account_pk(1)
    demo.table.update(
        keys.key(pk, keys.coupon_code_sk("TEST")),
        "SET #r = :n",
        names={"#r": keys.COUPON_REDEMPTIONS},
        values={":n": 2},
    )
    # What fulfilment keeps: the player's uses of this coupon.
    demo.table.put(
        {
            **keys.key(pk, keys.coupon_use_sk(coupon.id, player["username_id"])),
            "entity": "coupon_use",
            "uses": 1,
        }
    )
    assert_error(code(invoke, ident, "coupons", "test"), 422, "coupon_code", reason)
    assert basket(demo, invoke, ident)["coupons"] == []


def test_username_coupon_for_the_right_player(demo: DemoStore, invoke: Invoke) -> None:
    put_coupon(demo, username="Notch", user_limit=3)
    anonymous = create(demo, invoke)["ident"]
    assert_error(code(invoke, anonymous, "coupons", "TEST"), 422, "coupon_code", "log in first")
    ident = create(demo, invoke, username="notch")["ident"]
    add(invoke, ident, package_id=10)
    assert code(invoke, ident, "coupons", "TEST").status == 200
    assert basket(demo, invoke, ident)["total_price"] == 1.25


def test_at_most_five_coupons_and_reapplying_is_not_another(demo: DemoStore, invoke: Invoke) -> None:
    ident = create(demo, invoke)["ident"]
    for i in range(5):
        put_coupon(demo, code=f"C{i}")
        assert code(invoke, ident, "coupons", f"C{i}").status == 200
    assert code(invoke, ident, "coupons", "C0").status == 200
    put_coupon(demo, code="C5")
    assert_error(code(invoke, ident, "coupons", "C5"), 422, "coupon_code", "at most 5")


# --- gift cards ---------------------------------------------------------------------------------


def put_card(demo: DemoStore, number: str, **fields: Any) -> None:
    card = GiftCard(
        id=fields.pop("id", 9),
        card_number=number,
        balance=fields.pop("balance", Decimal("3.00")),
        starting_balance=Decimal("10.00"),
        created_at=datetime(2024, 1, 1, tzinfo=UTC),
        **fields,
    )
    demo.table.put(AccountRepository(demo.table).giftcard_item(1, card))


def test_gift_cards_cover_the_total_in_order(demo: DemoStore, invoke: Invoke) -> None:
    ident = create(demo, invoke)["ident"]
    add(invoke, ident, package_id=11, quantity=3, variable_data={"world": "survival"})  # 15.00
    put_card(demo, "CARD-2")
    assert code(invoke, ident, "giftcards", "GIFT-0000-0000-0001").status == 200
    assert code(invoke, ident, "giftcards", "card-2").status == 200
    stored = BasketRepository(demo.table).get(ident)
    assert stored.giftcards == ["GIFT-0000-0000-0001", "CARD-2"]
    assert stored.total_price == Decimal("15.00")
    assert stored.giftcard_amount == Decimal("13.00")
    data = basket(demo, invoke, ident)
    assert data["giftcards"] == [{"card_number": "GIFT-0000-0000-0001"}, {"card_number": "CARD-2"}]
    assert data["total_price"] == 15.0
    # The basket shrinks: the cards cover at most the total
    invoke(
        update_basket_package_quantity.handler,
        "PUT",
        f"/api/baskets/{ident}/packages/11",
        body={"quantity": 1},
    )
    assert BasketRepository(demo.table).get(ident).giftcard_amount == Decimal("5.00")


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"balance": Decimal(0)}, "no balance"),
        ({"void": True}, "no longer valid"),
        ({"currency": "EUR"}, "in EUR"),
        ({"expires_at": datetime(2020, 1, 1, tzinfo=UTC)}, "expired"),
    ],
)
def test_unusable_gift_cards(demo: DemoStore, invoke: Invoke, fields: dict[str, Any], reason: str) -> None:
    ident = create(demo, invoke)["ident"]
    put_card(demo, "BAD-CARD", **fields)
    assert_error(code(invoke, ident, "giftcards", "BAD-CARD"), 422, "card_number", reason)


# --- creator codes ------------------------------------------------------------------------------


def test_creator_code_is_recorded_and_does_not_change_prices(demo: DemoStore, invoke: Invoke) -> None:
    ident = create(demo, invoke)["ident"]
    add(invoke, ident, package_id=10)
    before = basket(demo, invoke, ident)
    code(invoke, ident, "creator-codes", "steve")
    after = basket(demo, invoke, ident)
    assert after["creator_code"] == "STEVE"
    assert after["total_price"] == before["total_price"]
    assert_error(
        code(invoke, ident, "creator-codes", "OTHER", remove=True), 422, "creator_code", "not applied"
    )
    assert basket(demo, invoke, ident)["creator_code"] == "STEVE"
