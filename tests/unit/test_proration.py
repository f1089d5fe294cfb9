"""prorate_price: pure, no I/O (its billing periods: tests/unit/test_calendar.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from webstore.pricing import prorate_price

END = datetime(2026, 7, 1, tzinfo=UTC)
START = END - timedelta(days=30)


def prorate(
    current: str,
    new: str,
    now: datetime,
    start: datetime | None = START,
    end: datetime | None = END,
    currency: str = "USD",
) -> Decimal:
    return prorate_price(
        Decimal(current), Decimal(new), now=now, period_start=start, period_end=end, currency=currency
    )


def test_upgrade_halfway_costs_half_the_difference() -> None:
    assert prorate("4.99", "9.99", START + timedelta(days=15)) == Decimal("2.50")


def test_upgrade_at_the_start_costs_the_whole_difference_and_at_the_end_nothing() -> None:
    assert prorate("4.99", "9.99", START) == Decimal("5.00")
    assert prorate("4.99", "9.99", END) == Decimal("0.00")


def test_fraction_is_clamped_outside_the_period() -> None:
    assert prorate("4.99", "9.99", START - timedelta(days=3)) == Decimal("5.00")
    assert prorate("4.99", "9.99", END + timedelta(days=3)) == Decimal("0.00")


@pytest.mark.parametrize("new", ["4.99", "1.00", "0"])
def test_a_downgrade_or_the_same_price_costs_nothing_now(new: str) -> None:
    assert prorate("4.99", new, START + timedelta(days=1)) == Decimal("0.00")


def test_without_a_known_period_the_whole_difference_is_due() -> None:
    now = START + timedelta(days=10)
    assert prorate("4.99", "9.99", now, start=None) == Decimal("5.00")
    assert prorate("4.99", "9.99", now, end=None) == Decimal("5.00")
    assert prorate("4.99", "9.99", now, start=END, end=START) == Decimal("5.00")


def test_rounded_once_to_the_currency_minor_unit() -> None:
    third = START + timedelta(days=10)  # two thirds of the period remain
    assert prorate("1.00", "2.00", third) == Decimal("0.67")
    assert prorate("100", "200", third, currency="JPY") == Decimal("67")
    assert prorate("1.000", "2.000", third, currency="KWD") == Decimal("0.667")
