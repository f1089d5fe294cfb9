"""Pricing, as properties over random baskets, coupons, gift cards, sales and tax modes
(Hypothesis): what is charged is the basket's total less what gift cards pay, never negative,
and the line prices shown (with the tax, when it is added on top) add up to it exactly."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.test_pricing import coupon, ctx, line, sale
from webstore.basket_pricing import allocate, price_basket
from webstore.catalog import Effective, TaxMode
from webstore.money import quantum

money = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("250"), places=2)
percent = st.decimals(min_value=Decimal("1"), max_value=Decimal("100"), places=2).map(str)
categories = st.sampled_from([1, 2, 3])

lines = st.lists(
    st.builds(
        lambda price, quantity, package_id, category_id: line(str(price), quantity, package_id, category_id),
        money,
        st.integers(1, 40),
        st.integers(1, 6),
        categories,
    ),
    min_size=1,
    max_size=8,
)
effects = st.one_of(
    st.just(Effective(type="cart")),
    categories.map(lambda c: Effective(type="category", categories=[c])),
    st.integers(1, 6).map(lambda p: Effective(type="package", packages=[p])),
)
coupons = st.lists(
    st.builds(
        lambda pct, value, use_value, method, effective, n: coupon(
            "0" if use_value else pct, str(value) if use_value else "0", method, effective=effective, id=n
        ),
        percent,
        money,
        st.booleans(),
        st.sampled_from([0, 1, 2]),
        effects,
        st.integers(1, 1000),
    ),
    max_size=3,
)
sales = st.lists(
    st.builds(
        lambda pct, value, use_value, effective: sale(
            "0" if use_value else pct, str(value) if use_value else "0", **effective.model_dump()
        ),
        percent,
        money,
        st.booleans(),
        effects,
    ),
    max_size=3,
)
cards = st.lists(
    st.tuples(st.text("ABCDEF0123", min_size=4, max_size=8), money), max_size=3, unique_by=lambda c: c[0]
)
taxes = st.sampled_from(
    [(TaxMode.NONE, "0"), (TaxMode.EXCLUSIVE, "20"), (TaxMode.EXCLUSIVE, "7.25"), (TaxMode.INCLUSIVE, "19")]
)
currencies = st.sampled_from(["USD", "JPY", "KWD"])


@settings(max_examples=600, deadline=None)
@given(lines, coupons, sales, cards, taxes, currencies)
def test_what_is_shown_adds_up_to_what_is_charged(
    basket_lines: list, basket_coupons: list, active_sales: list, gift_cards: list, tax: tuple, currency: str
) -> None:
    mode, rate = tax
    context = ctx(active_sales, mode=mode, rate=rate, currency=currency)
    price = price_basket(basket_lines, context, coupons=basket_coupons, giftcards=gift_cards)
    step = quantum(currency)
    shown = sum((lp.line_price for lp in price.lines), Decimal(0))
    on_top = price.sales_tax if mode is TaxMode.EXCLUSIVE else Decimal(0)

    assert shown + on_top == price.total_price
    assert price.base_price - price.discount == shown
    assert price.total_price >= 0 and price.discount >= 0
    assert all(lp.line_price >= 0 for lp in price.lines)
    assert 0 <= price.giftcard_amount <= price.total_price
    assert price.giftcard_amount == sum(price.giftcards.values(), Decimal(0))
    assert price.amount_due == price.total_price - price.giftcard_amount >= 0
    for figure in (price.total_price, price.discount, price.sales_tax, price.giftcard_amount, shown):
        assert figure == figure.quantize(step)


@given(st.lists(st.decimals(min_value=0, max_value=1000, places=6), min_size=1, max_size=12))
def test_allocation_rounds_each_amount_by_less_than_a_cent_and_adds_up(amounts: list[Decimal]) -> None:
    total = sum(amounts, Decimal(0)).quantize(Decimal("0.01"), rounding="ROUND_HALF_UP")
    shares = allocate(amounts, total, "USD")
    assert sum(shares, Decimal(0)) == total
    assert all(abs(share - amount) < Decimal("0.01") for share, amount in zip(shares, amounts, strict=True))
