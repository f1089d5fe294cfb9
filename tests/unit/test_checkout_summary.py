"""The checkout's rows (`checkout.summary.order_summary`), pure: the lines at list price, one
row per discount source, tax, total, gift cards, amount due; and they always add up."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from tests.unit.test_basket import NOW, add, basket, giftcard, package, store
from webstore.basket import Basket
from webstore.catalog import Coupon, Discount, DiscountType, Effective, PackageType, Sale, Store, Tax, TaxMode
from webstore.checkout.summary import OrderSummary, RowKind, mask_card, order_summary, period_text

D = Decimal


def crate_week(percentage: str = "10", **fields: Any) -> Sale:
    return Sale(
        id=fields.pop("id", 1),
        name=fields.pop("name", "Crate week"),
        effective=fields.pop("effective", Effective(type="category", categories=[3])),
        discount=Discount(type=DiscountType.PERCENTAGE, percentage=D(percentage)),
        start=NOW - timedelta(days=1),
        expire=NOW + timedelta(days=1),
    )


def coupon(code: str, percentage: str = "10", **fields: Any) -> Coupon:
    """A basket-wide percentage coupon unless `fields` say otherwise."""
    fields.setdefault("discount", Discount(type=DiscountType.PERCENTAGE, percentage=D(percentage)))
    fields.setdefault("effective", Effective(type="cart"))
    fields.setdefault("discount_application_method", 1)
    return Coupon(id=fields.pop("id", 1), code=code, created_at=NOW, **fields)


def value_coupon(code: str, value: str, packages: list[int], **fields: Any) -> Coupon:
    """An amount off each unit of the packages named (method 0)."""
    return coupon(
        code,
        id=fields.pop("id", 2),
        discount=Discount(type=DiscountType.VALUE, value=D(value)),
        effective=Effective(type="package", packages=packages),
        discount_application_method=0,
        **fields,
    )


def priced(b: Basket, s: Store, now: datetime = NOW) -> OrderSummary:
    b.reprice(s, now)
    return order_summary(b, s, now)


def assert_adds_up(summary: OrderSummary, b: Basket) -> None:
    """What the reader checks: lines -> subtotal; subtotal - discounts + added tax -> total;
    total - gift cards -> amount due; the amount due is what the charge takes."""
    rows = {kind: [r.amount for r in summary.rows if r.kind is kind] for kind in RowKind}
    [subtotal] = rows[RowKind.SUBTOTAL]
    assert sum((line.line_total for line in summary.lines), D(0)) == subtotal
    assert subtotal + sum(rows[RowKind.DISCOUNT], D(0)) + sum(rows[RowKind.TAX], D(0)) == summary.total
    assert summary.total + sum(rows[RowKind.GIFT_CARD], D(0)) == summary.amount_due
    assert summary.total == b.total_price and summary.amount_due == b.total_price - b.giftcard_amount
    assert all(amount <= 0 for amount in rows[RowKind.DISCOUNT] + rows[RowKind.GIFT_CARD])


def test_lines_are_shown_at_list_price_and_the_discounts_are_not_taken_twice() -> None:
    s = store(sales=[crate_week()], tax=Tax(mode=TaxMode.EXCLUSIVE, rate=D(8)))
    b = basket(username="Steve")
    add(b, package(10, "2.50", name="Diamond Sword"), 2)
    add(b, package(20, "1.99", name="Crate Key", category_id=3), 3)
    add(b, package(11, "5.00", name="Coins"), 1)
    b.coupons = [
        value_coupon("SWORD1", "1.00", [10]),
        coupon("WELCOME10", id=3, discount_application_method=0),
    ]
    b.apply_giftcard(giftcard("GIFT-0000-0001", "10.00"), NOW)

    summary = priced(b, s)

    assert [(line.name, line.quantity, line.unit_price, line.line_total) for line in summary.lines] == [
        ("Diamond Sword", 2, D("2.50"), D("5.00")),
        ("Crate Key", 3, D("1.99"), D("5.97")),
        ("Coins", 1, D("5.00"), D("5.00")),
    ]
    assert [(r.kind, r.label, r.amount) for r in summary.rows] == [
        (RowKind.SUBTOTAL, "Subtotal", D("15.97")),
        (RowKind.DISCOUNT, "Sale: Crate week", D("-0.60")),
        (RowKind.DISCOUNT, "Coupon SWORD1", D("-2.00")),
        (RowKind.DISCOUNT, "Coupon WELCOME10", D("-1.33")),
        (RowKind.TAX, "Sales tax", D("0.96")),
        (RowKind.TOTAL, "Total", D("13.00")),
        (RowKind.GIFT_CARD, "Gift card ••••0001", D("-10.00")),
        (RowKind.DUE, "Amount due", D("3.00")),
    ]
    assert_adds_up(summary, b)


def test_basket_wide_coupons_sales_and_gift_cards_add_up_for_many_baskets() -> None:
    """Random baskets with every kind of discount, tax mode and gift card: the rows add up."""
    chooser = random.Random(13)
    for _ in range(150):
        mode = chooser.choice(list(TaxMode))
        s = store(
            sales=[
                crate_week(chooser.choice(["5", "12.5", "33"])),
                crate_week("20", id=2, name="All", effective=Effective()),
            ]
            if chooser.random() < 0.7
            else [],
            tax=Tax(mode=mode, rate=D(chooser.choice(["0", "7", "19.6", "25"]))),
        )
        b = basket(username="Steve")
        for package_id in chooser.sample([10, 11, 20, 21], chooser.randint(1, 4)):
            price = D(chooser.randint(1, 5000)) / D(chooser.choice([100, 1000]))
            add(
                b,
                package(package_id, str(price), category_id=3 if package_id > 15 else 1),
                chooser.randint(1, 7),
            )
        choices = [
            value_coupon("TENOFF", str(chooser.randint(1, 900) / 100), [10, 20]),
            coupon("PCT", id=3, percentage=str(chooser.randint(1, 60))),
            coupon("AFTER", id=4, discount_application_method=2, percentage="15"),
            coupon("BIG", id=5, discount=Discount(type=DiscountType.VALUE, value=D(7)), minimum=D(500)),
        ]
        b.coupons = chooser.sample(choices, chooser.randint(0, 4))
        if chooser.random() < 0.5:
            b.apply_giftcard(giftcard("GIFT-1", str(chooser.randint(1, 4000) / 100)), NOW)
        summary = priced(b, s)
        assert_adds_up(summary, b)
        assert "Discounts" not in [r.label for r in summary.rows]  # split by source, not lumped


def test_a_coupon_that_takes_nothing_is_named_as_not_applying() -> None:
    b = basket(username="Steve")
    add(b, package(10, "4.00"))
    b.coupons = [coupon("BIG", discount=Discount(type=DiscountType.VALUE, value=D(5)), minimum=D(100))]
    summary = priced(b, store())
    [row] = [r for r in summary.rows if r.kind is RowKind.DISCOUNT]
    assert (row.label, row.amount, row.note) == ("Coupon BIG", D(0), "does not apply to this basket")
    assert_adds_up(summary, b)


def test_a_receipt_priced_under_other_sales_shows_one_row_with_the_baskets_discount() -> None:
    """The store's sales changed since the payment: the split cannot be told, the sum can."""
    b = basket(username="Steve")
    add(b, package(20, "10.00", category_id=3))
    b.coupons = [coupon("PCT", percentage="10")]
    b.reprice(store(sales=[crate_week("50")]), NOW)  # as paid: half off, and 10% of the list price
    summary = order_summary(b, store(), NOW)  # the sale is gone from the store since
    discounts = [r for r in summary.rows if r.kind is RowKind.DISCOUNT]
    assert [(r.label, r.amount, r.note) for r in discounts] == [
        ("Discounts", D("-6.00"), "sales, coupon PCT")
    ]
    assert_adds_up(summary, b)


def test_inclusive_tax_is_a_note_not_a_row() -> None:
    s = store(tax=Tax(mode=TaxMode.INCLUSIVE, rate=D(20)))
    b = basket()
    add(b, package(10, "12.00"))
    summary = priced(b, s)
    assert RowKind.TAX not in {r.kind for r in summary.rows}
    assert summary.tax_included == D("2.00") and summary.total == D("12.00")
    assert_adds_up(summary, b)


def test_a_subscription_line_carries_its_renewal() -> None:
    b = basket(username="Steve")
    add(
        b,
        package(1, "4.99", name="VIP", type=PackageType.SUBSCRIPTION, expiry_length=1, expiry_period="month"),
    )
    add(
        b,
        package(
            2, "30.00", name="Yearly", type=PackageType.SUBSCRIPTION, expiry_length=1, expiry_period="year"
        ),
    )
    add(b, package(3, "9.00", name="Quarterly", type=PackageType.SUBSCRIPTION, expiry_length=3))
    add(b, package(10, "2.50"))
    jan31 = datetime(2027, 1, 31, 9, tzinfo=UTC)
    summary = priced(b, store(), jan31)
    assert [(r.name, r.price, r.every, r.renews_on) for r in summary.renewals] == [
        ("VIP", D("4.99"), "month", date(2027, 2, 28)),
        ("Yearly", D("30.00"), "year", date(2028, 1, 31)),
        ("Quarterly", D("9.00"), "3 months", date(2027, 4, 30)),
    ]
    assert summary.lines[3].renewal is None


def test_the_creator_code_is_named_and_changes_nothing() -> None:
    b = basket(username="Steve", creator_code="STEVE")
    add(b, package(10, "2.50"))
    summary = priced(b, store())
    assert summary.creator_code == "STEVE"
    assert [r.kind for r in summary.rows] == [RowKind.SUBTOTAL, RowKind.TOTAL, RowKind.DUE]


def test_player_entries_and_images_are_kept_as_data_only_web_images() -> None:
    b = basket(username="Steve")
    add(
        b,
        package(11, "5.00", variables=["note"], image="javascript:alert(1)"),
        variable_data={"note": "<b>hi</b>"},
    )
    add(b, package(10, "2.50", image="https://img.test/sword.png"))
    summary = priced(b, store())
    assert summary.lines[0].details == (("note", "<b>hi</b>"),) and summary.lines[0].image is None
    assert summary.lines[1].image == "https://img.test/sword.png"


@pytest.mark.parametrize(
    ("length", "period", "text"), [(1, "month", "month"), (3, "month", "3 months"), (2, "year", "2 years")]
)
def test_period_text(length: int, period: str, text: str) -> None:
    assert period_text(length, period) == text


def test_a_gift_card_shows_its_last_four_characters_only() -> None:
    assert mask_card("GIFT-0000-0000-0001") == "••••0001"
