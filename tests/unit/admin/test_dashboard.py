"""The dashboard's pure rules: ranges, months, sums and the top-package merge."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from webstore.admin import dashboard as d
from webstore.errors import Invalid
from webstore.repo.daily_stats import DayFigures, PackageDay, figures_of, payment_counters
from webstore.repo.payments import PaymentLine, PaymentRecord


def day(when: date, payments: int = 0, revenue: str = "0", **more: object) -> DayFigures:
    figures = DayFigures(when, payments=payments, revenue={"EUR": Decimal(revenue)})
    for name, value in more.items():
        setattr(figures, name, value)
    return figures


def test_a_range_ends_today_and_holds_its_days_oldest_first() -> None:
    days = d.range_days(date(2026, 3, 2), 7)
    assert days[0] == date(2026, 2, 24) and days[-1] == date(2026, 3, 2) and len(days) == 7
    assert len(d.range_days(date(2026, 3, 2), 365)) == 365


@pytest.mark.parametrize(("value", "days"), [(None, 30), ("", 30), ("7", 7), (90, 90), ("365", 365)])
def test_the_range_is_one_of_the_offered_ones(value: str | int | None, days: int) -> None:
    assert d.parse_range(value) == days


@pytest.mark.parametrize("value", ["0", "31", "abc", "-7", 1000])
def test_any_other_range_is_refused_naming_days(value: str | int) -> None:
    with pytest.raises(Invalid) as refused:
        d.parse_range(value)
    assert refused.value.field == "days"


def test_months_previous_month_and_its_length() -> None:
    assert d.previous_month_start(date(2026, 1, 15)) == date(2025, 12, 1)
    assert d.previous_month_start(date(2026, 3, 31)) == date(2026, 2, 1)
    assert len(d.month_days(date(2024, 2, 1))) == 29
    # Last month "to date" stops at its own last day when it is shorter.
    assert d.month_days(date(2026, 2, 1), 31)[-1] == date(2026, 2, 28)


def test_days_to_read_cover_the_range_and_both_months_once() -> None:
    today = date(2026, 3, 10)
    wanted = d.days_to_read(today, 7)
    assert wanted == sorted(set(wanted))
    assert wanted[0] == date(2026, 2, 1) and wanted[-1] == today and len(wanted) == 28 + 10
    assert len(d.days_to_read(today, 365)) == 365  # the months lie inside the range
    assert max(len(d.days_to_read(date(2026, m, 31 if m in (1, 3) else 28), 30)) for m in (1, 3)) <= 62


def test_month_comparison_compares_the_same_days_and_the_whole_last_month() -> None:
    today = date(2026, 3, 10)
    by_day = {
        date(2026, 2, 5): day(date(2026, 2, 5), 1, "10"),
        date(2026, 2, 20): day(date(2026, 2, 20), 2, "30"),
        date(2026, 3, 1): day(date(2026, 3, 1), 1, "12.50"),
        date(2026, 3, 10): day(date(2026, 3, 10), 1, "2.50", refunds=1, refunded={"EUR": Decimal("2.50")}),
    }
    months = d.compare_months(by_day, today, "EUR")
    assert (months.this_month, months.last_month) == (date(2026, 3, 1), date(2026, 2, 1))
    assert (months.so_far.payments, months.so_far.revenue) == (2, Decimal("15.00"))
    assert months.so_far.net == Decimal("12.50")
    assert (months.last_to_date.payments, months.last_to_date.revenue) == (1, Decimal("10"))
    assert (months.last_in_full.payments, months.last_in_full.revenue) == (3, Decimal("40"))
    assert months.revenue_change == Decimal("50.0")
    assert d.compare_months({}, today, "EUR").revenue_change is None


def test_totals_keep_to_the_store_currency_and_net_counts_chargebacks_won_back() -> None:
    figures = day(date(2026, 3, 1), 3, "30", chargebacks=1, chargebacks_won=1)
    figures.revenue["USD"] = Decimal("99")
    figures.charged_back = {"EUR": Decimal("10")}
    figures.won_back = {"EUR": Decimal("10")}
    total = d.totals([figures, day(date(2026, 3, 2), 1, "5")], "EUR")
    assert (total.payments, total.revenue, total.net, total.chargebacks) == (
        4,
        Decimal("35"),
        Decimal("35"),
        1,
    )
    assert d.other_currencies([figures], "EUR") == ["USD"]


def test_top_packages_merge_days_rank_by_revenue_then_units_and_keep_the_latest_name() -> None:
    first = DayFigures(date(2026, 3, 1))
    first.packages = {
        1: PackageDay("VIP (old)", 2, {"EUR": Decimal("10")}),
        2: PackageDay("Key", 5, {"EUR": Decimal("5")}),
        3: PackageDay("Cape", 1, {"EUR": Decimal("5")}),
    }
    second = DayFigures(date(2026, 3, 2))
    second.packages = {
        1: PackageDay("VIP", 1, {"EUR": Decimal("5")}),
        4: PackageDay("USD only", 1, {"USD": Decimal("50")}),
    }
    top = d.top_packages([second, first], "EUR", limit=3)
    assert [(p.package_id, p.name, p.count, p.revenue) for p in top] == [
        (1, "VIP", 3, Decimal("15")),
        (2, "Key", 5, Decimal("5")),
        (3, "Cape", 1, Decimal("5")),
    ]
    assert len(d.top_packages([first, second], "EUR")) == 4


def test_a_payment_counts_each_package_once_however_many_lines_name_it() -> None:
    def line(package_id: int, quantity: int, price: str, *, dynamic: bool = False) -> PaymentLine:
        return PaymentLine(
            package_id=package_id, category_id=1, name=f"P{package_id}", quantity=quantity,
            base_price=Decimal(price), price=Decimal(price), username_id=1, username="Steve",
            uuid="u", dynamic=dynamic,
        )  # fmt: skip

    payment = PaymentRecord.model_validate(
        {
            "id": 1, "transaction_id": "tbx-1-00000000", "account_id": 1, "amount": Decimal("12"),
            "currency": "EUR", "gateway": "manual", "email": "", "username_id": 1, "username": "Steve",
            "uuid": "u", "lines": [line(1, 1, "4"), line(1, 2, "6"), line(900, 1, "2", dynamic=True)],
            "idempotency_key": "k", "created_at": "2026-03-01T00:00:00+00:00",
            "updated_at": "2026-03-01T00:00:00+00:00",
        }
    )  # fmt: skip
    adds, names = payment_counters(payment)
    assert adds == {"payments": 1, "revenue_EUR": Decimal("12"), "pc1": 3, "pr1_EUR": Decimal("10")}
    assert names == {"pn1": "P1"}
    stored = figures_of(date(2026, 3, 1), {**adds, **names, "entity": "day_stats", "day": "2026-03-01"})
    assert stored.payments == 1 and stored.revenue == {"EUR": Decimal("12")}
    assert stored.packages == {1: PackageDay("P1", 3, {"EUR": Decimal("10")})}


def test_the_largest_payment_updates_its_day_within_the_expression_limit() -> None:
    """A payment of MAX_LINES different packages: one action, its expression under 4 KB."""
    from types import SimpleNamespace
    from typing import cast

    from webstore.db import Table, Transaction
    from webstore.payments.order import MAX_LINES
    from webstore.repo.daily_stats import DailyStatsRepository

    lines = [
        PaymentLine(
            package_id=2_000_000_000 + n,
            category_id=1,
            name="x" * 100,
            quantity=1000,
            base_price=Decimal("999999.99"),
            price=Decimal("999999999.99"),
            username_id=1,
            username="Steve",
            uuid="u",
        )
        for n in range(MAX_LINES)
    ]
    payment = PaymentRecord.model_validate(
        {
            "id": 1, "transaction_id": "tbx-1-00000000", "account_id": 1, "amount": Decimal("1"),
            "currency": "EUR", "gateway": "manual", "email": "", "username_id": 1, "username": "Steve",
            "uuid": "u", "lines": lines, "idempotency_key": "k", "created_at": "2026-03-01T00:00:00+00:00",
            "updated_at": "2026-03-01T00:00:00+00:00",
        }
    )  # fmt: skip
    tx = Transaction(cast(Table, SimpleNamespace()))
    DailyStatsRepository.add_payment(tx, payment)
    [action] = tx.actions
    expression = action.body["UpdateExpression"]
    assert len(expression.encode()) < 4096 and expression.count("#") == 2 + 3 * MAX_LINES + 2
