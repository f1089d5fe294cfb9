"""Pricing, pure: sales, coupons (rules and the three application methods), tax, gift cards."""

from __future__ import annotations

import itertools
import random
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from webstore.basket_pricing import PricedLine, coupon_refusal, price_basket
from webstore.catalog import (
    BasketType,
    Coupon,
    Discount,
    DiscountType,
    Effective,
    PackageType,
    Sale,
    Store,
    Tax,
    TaxMode,
)
from webstore.money import round_money
from webstore.pricing import PricingContext

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
D = Decimal


def store(mode: TaxMode = TaxMode.NONE, rate: str = "0", currency: str = "USD") -> Store:
    return Store(
        id=1,
        name="Test",
        currency=currency,
        created_at=NOW,
        public_token="1-" + "0" * 32,
        checkout_key_hash="x",
        tax=Tax(mode=mode, rate=D(rate)),
    )


def ctx(sales: list[Sale] | None = None, **kwargs: Any) -> PricingContext:
    return PricingContext(store=store(**kwargs), sales=sales or [], now=NOW)


def sale(percentage: str = "0", value: str = "0", **effective: Any) -> Sale:
    kind = DiscountType.PERCENTAGE if percentage != "0" else DiscountType.VALUE
    return Sale(
        id=1,
        name="sale",
        effective=Effective(**effective) if effective else Effective(),
        discount=Discount(type=kind, percentage=D(percentage), value=D(value)),
        start=NOW - timedelta(days=1),
        expire=NOW + timedelta(days=1),
    )


def coupon(percentage: str = "0", value: str = "0", method: int = 0, **fields: Any) -> Coupon:
    kind = DiscountType.PERCENTAGE if percentage != "0" else DiscountType.VALUE
    fields.setdefault("effective", Effective(type="cart"))
    return Coupon(
        id=fields.pop("id", 1),
        code=fields.pop("code", "CODE"),
        discount=Discount(type=kind, percentage=D(percentage), value=D(value)),
        discount_application_method=method,  # type: ignore[arg-type]
        created_at=NOW,
        **fields,
    )


def line(price: str, quantity: int = 1, package_id: int = 10, category_id: int = 2, **kw: Any) -> PricedLine:
    return PricedLine(package_id, category_id, D(price), quantity, **kw)


# --- sales and rounding ---------------------------------------------------------------------


def test_empty_basket_costs_nothing() -> None:
    price = price_basket([], ctx())
    assert (price.base_price, price.discount, price.total_price, price.giftcard_amount) == (0, 0, 0, 0)


def test_best_sale_wins_and_money_is_rounded_once() -> None:
    sales = [sale("10", categories=[3], type="category"), sale("15", packages=[20], type="package")]
    price = price_basket([line("1.99", 3, package_id=20, category_id=3)], ctx(sales))
    # 15% of 1.99 = 0.2985 -> unit 1.6915 exact; the line, 5.0745, is rounded once: 5.07
    # (rounding the unit first would give 3 x 1.69 = 5.07 here, but 1.6915 is what is kept)
    assert price.lines[0].unit_price == D("1.69")
    assert price.lines[0].line_price == D("5.07")
    assert price.base_price == D("5.97")
    assert price.discount == D("0.90")
    assert price.total_price == D("5.07")


def test_sale_outside_its_window_takes_nothing() -> None:
    expired = sale("50")
    expired.expire = NOW
    assert price_basket([line("10")], ctx([expired])).total_price == D("10.00")


def test_value_sale_never_goes_below_zero() -> None:
    assert price_basket([line("3.00", 2)], ctx([sale(value="5")])).total_price == D("0.00")


# --- coupons: application methods -------------------------------------------------------------


def test_method_0_takes_off_each_unit_it_covers() -> None:
    lines = [line("2.50", 3, package_id=10), line("5.00", 1, package_id=11)]
    value = coupon(value="1.00", effective=Effective(type="package", packages=[10]))
    price = price_basket(lines, ctx(), coupons=[value])
    assert [lp.unit_price for lp in price.lines] == [D("1.50"), D("5.00")]
    assert price.total_price == D("9.50")
    assert price.discount == D("3.00")


def test_method_1_is_computed_on_the_total_before_sales() -> None:
    lines = [line("10.00", 1)]
    before = price_basket(lines, ctx([sale("50")]), coupons=[coupon("10", method=1)])
    after = price_basket(lines, ctx([sale("50")]), coupons=[coupon("10", method=2)])
    assert before.total_price == D("4.00")  # 10 - 5 (sale) - 1 (10% of 10)
    assert after.total_price == D("4.50")  # 10 - 5 (sale) - 0.5 (10% of 5)
    assert before.lines[0].unit_price == D("5.00")  # basket-level coupons stay off the lines


def test_basket_level_value_coupon_applies_once_and_only_to_what_it_covers() -> None:
    lines = [line("4.00", 2, category_id=2), line("20.00", 1, package_id=30, category_id=9)]
    big = coupon(value="5", method=2, effective=Effective(type="category", categories=[2]))
    price = price_basket(lines, ctx(), coupons=[big])
    assert price.total_price == D("23.00")  # 5 off the 8.00 of category 2
    capped = coupon(value="50", method=2, effective=Effective(type="category", categories=[2]))
    assert price_basket(lines, ctx(), coupons=[capped]).total_price == D("20.00")


def test_package_coupons_do_not_reach_dynamic_packages_of_the_same_id() -> None:
    only_ten = coupon("50", effective=Effective(type="package", packages=[10]))
    price = price_basket([line("4.00", dynamic=True)], ctx(), coupons=[only_ten])
    assert price.total_price == D("4.00")


# --- coupons: rules -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "lines", "kwargs", "reason"),
    [
        ({"start_date": NOW + timedelta(days=1)}, [], {}, "not valid yet"),
        ({"expire_never": False, "expire_date": NOW}, [], {}, "expired"),
        ({"redeem_unlimited": False, "expire_limit": 3}, [], {"redemptions": 3}, "redemption limit"),
        ({"user_limit": 1}, [], {"player_redemptions": 1}, "as often as it allows"),
        ({"username": "Notch"}, [], {"username": "jeb_"}, "another player"),
        ({"username": "Notch"}, [], {}, "log in first"),
        ({"basket_type": BasketType.SINGLE}, [line("1", type=PackageType.SUBSCRIPTION)], {}, "one-off"),
        ({"basket_type": BasketType.SUBSCRIPTION}, [line("1")], {}, "subscriptions only"),
        ({"minimum": D("20")}, [line("19.99")], {}, "at least 20.00 USD"),
    ],
)
def test_coupon_refusals_name_the_reason(
    fields: dict[str, Any], lines: list[PricedLine], kwargs: dict[str, Any], reason: str
) -> None:
    kwargs.setdefault("username", None)
    refusal = coupon_refusal(coupon("10", **fields), lines, ctx(), **kwargs)
    assert refusal is not None
    assert reason in refusal


@pytest.mark.parametrize(
    ("fields", "lines", "kwargs"),
    [
        ({"start_date": NOW}, [], {}),
        ({"expire_never": True, "expire_date": NOW - timedelta(days=9)}, [], {}),
        ({"redeem_unlimited": False, "expire_limit": 3}, [], {"redemptions": 2}),
        ({"redeem_unlimited": False, "expire_limit": 3}, [], {}),  # count unknown: payment decides
        ({"user_limit": 2}, [], {"player_redemptions": 1}),
        ({"username": "Notch"}, [], {"username": "notch"}),
        ({"basket_type": BasketType.SUBSCRIPTION}, [], {}),  # an empty basket has no type yet
        ({"basket_type": BasketType.SUBSCRIPTION}, [line("1", type=PackageType.SUBSCRIPTION)], {}),
        ({"minimum": D("20")}, [line("10", 2)], {}),
    ],
)
def test_coupons_that_qualify(
    fields: dict[str, Any], lines: list[PricedLine], kwargs: dict[str, Any]
) -> None:
    kwargs.setdefault("username", None)
    assert coupon_refusal(coupon("10", **fields), lines, ctx(), **kwargs) is None


def test_minimum_is_compared_after_sales() -> None:
    lines = [line("22.00")]
    assert coupon_refusal(coupon("10", minimum=D("20")), lines, ctx([sale("20")]), username=None)


def test_a_coupon_that_stops_qualifying_takes_nothing() -> None:
    minimum = coupon(value="5", method=2, minimum=D("20"))
    assert price_basket([line("25")], ctx(), coupons=[minimum]).total_price == D("20.00")
    assert price_basket([line("15")], ctx(), coupons=[minimum]).total_price == D("15.00")


# --- tax and gift cards ---------------------------------------------------------------------


def test_exclusive_tax_is_added_on_the_discounted_amount() -> None:
    price = price_basket([line("10.00")], ctx(mode=TaxMode.EXCLUSIVE, rate="20"), coupons=[coupon("10")])
    assert (price.sales_tax, price.total_price) == (D("1.80"), D("10.80"))


def test_inclusive_tax_is_contained_in_the_price() -> None:
    price = price_basket([line("12.00")], ctx(mode=TaxMode.INCLUSIVE, rate="20"))
    assert (price.sales_tax, price.total_price) == (D("2.00"), D("12.00"))


def test_gift_cards_pay_in_order_never_beyond_the_total() -> None:
    price = price_basket([line("12.00")], ctx(), giftcards=[("A", D("10")), ("B", D("5")), ("C", D("5"))])
    assert price.giftcards == {"A": D("10.00"), "B": D("2.00"), "C": D("0.00")}
    assert price.giftcard_amount == D("12.00")
    assert price.amount_due == 0
    assert price.total_price == D("12.00")  # cards pay; they are not a discount


def test_zero_decimal_currency_rounds_to_whole_units() -> None:
    price = price_basket([line("1000", 3)], ctx([sale("33.3")], currency="JPY"))
    assert price.total_price == D("2001")
    assert price.lines[0].unit_price == D("667")


# --- properties over many generated baskets -----------------------------------------------------


def random_basket(rng: random.Random) -> tuple[list[PricedLine], list[Coupon], list[tuple[str, Decimal]]]:
    lines = [
        line(
            f"{rng.randint(0, 5000) / 100:.2f}",
            rng.randint(1, 5),
            package_id=rng.choice([10, 11, 20]),
            category_id=rng.choice([2, 3]),
            type=rng.choice(list(PackageType)),
        )
        for _ in range(rng.randint(0, 5))
    ]
    coupons = [
        coupon(
            str(rng.randint(1, 100)) if rng.random() < 0.5 else "0",
            f"{rng.randint(1, 2000) / 100:.2f}",
            method=rng.choice([0, 1, 2]),
            id=i + 1,
            effective=rng.choice(
                [
                    Effective(type="cart"),
                    Effective(type="package", packages=[10]),
                    Effective(type="category", categories=[3]),
                ]
            ),
        )
        for i in range(rng.randint(0, 3))
    ]
    cards = [(f"C{i}", D(rng.randint(0, 3000)) / 100) for i in range(rng.randint(0, 2))]
    return lines, coupons, cards


@pytest.mark.parametrize(("mode", "seed"), list(itertools.product(list(TaxMode), range(40))))
def test_invariants_hold_for_generated_baskets(mode: TaxMode, seed: int) -> None:
    rng = random.Random(seed)
    lines, coupons, cards = random_basket(rng)
    context = ctx([sale("10", categories=[3], type="category")], mode=mode, rate="19")
    price = price_basket(lines, context, coupons=coupons, giftcards=cards)
    base = round_money(sum((pl.list_price * pl.quantity for pl in lines), start=D(0)), "USD")
    assert price.base_price == base
    assert D(0) <= price.discount <= price.base_price
    assert price.total_price >= 0
    assert D(0) <= price.giftcard_amount <= price.total_price
    assert price.giftcard_amount == sum(price.giftcards.values(), start=D(0))
    for figure in (price.base_price, price.discount, price.sales_tax, price.total_price):
        assert figure == round_money(figure, "USD")
    if mode is TaxMode.EXCLUSIVE:
        # net + tax = total within one cent of independent rounding
        assert abs(price.base_price - price.discount + price.sales_tax - price.total_price) <= D("0.01")
    else:
        assert abs(price.base_price - price.discount - price.total_price) <= D("0.01")
    for priced, lp in zip(lines, price.lines, strict=True):
        assert D(0) <= lp.unit_price <= priced.list_price
    # more coupons never make a basket dearer
    assert price.total_price <= price_basket(lines, context, coupons=coupons[:-1]).total_price
