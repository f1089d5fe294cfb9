"""Billing periods: N days, months or years, clamped to the end of shorter months."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from webstore.calendar import add_months, add_periods, period_end, period_start


def at(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, 8, 15, tzinfo=UTC)


@pytest.mark.parametrize(
    ("start", "count", "period", "end"),
    [
        (at(2026, 1, 31), 1, "month", at(2026, 2, 28)),
        (at(2028, 1, 31), 1, "month", at(2028, 2, 29)),  # leap year
        (at(2026, 11, 30), 3, "month", at(2027, 2, 28)),
        (at(2026, 3, 31), -1, "month", at(2026, 2, 28)),  # back: a period's start
        (at(2028, 2, 29), 1, "year", at(2029, 2, 28)),
        (at(2026, 12, 31), 1, "day", at(2027, 1, 1)),
        (at(2026, 3, 1), -30, "day", at(2026, 1, 30)),
    ],
)
def test_add_periods(start: datetime, count: int, period: str, end: datetime) -> None:
    assert add_periods(start, count, period) == end


def test_period_end_is_none_without_a_length_and_unknown_periods_are_refused() -> None:
    assert period_end(at(2026, 1, 1), 0, "month") is None
    assert period_end(at(2026, 1, 1), 2, "year") == at(2028, 1, 1)
    assert add_months(at(2026, 1, 15), 24) == at(2028, 1, 15)
    with pytest.raises(ValueError):
        add_periods(at(2026, 1, 1), 1, "week")


END = datetime(2026, 7, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("moment", "months", "expected"),
    [
        (datetime(2026, 3, 31, 12, tzinfo=UTC), -1, datetime(2026, 2, 28, 12, tzinfo=UTC)),
        (datetime(2024, 3, 31, tzinfo=UTC), -1, datetime(2024, 2, 29, tzinfo=UTC)),
        (datetime(2026, 1, 15, tzinfo=UTC), -1, datetime(2025, 12, 15, tzinfo=UTC)),
        (datetime(2026, 1, 15, tzinfo=UTC), -13, datetime(2024, 12, 15, tzinfo=UTC)),
        (datetime(2026, 11, 30, tzinfo=UTC), 3, datetime(2027, 2, 28, tzinfo=UTC)),
    ],
)
def test_add_months_clamps_the_day(moment: datetime, months: int, expected: datetime) -> None:
    assert add_months(moment, months) == expected


def test_period_start() -> None:
    assert period_start(END, 1, "month") == datetime(2026, 6, 1, tzinfo=UTC)
    assert period_start(END, 2, "year") == datetime(2024, 7, 1, tzinfo=UTC)
    assert period_start(END, 7, "day") == END - timedelta(days=7)
    assert period_start(END, 0, "month") is None
    with pytest.raises(ValueError, match="billing period"):
        period_start(END, 1, "fortnight")
