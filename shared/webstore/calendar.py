"""Calendar arithmetic for billing periods (subscription renewals, tier proration).

A period is `count` days, months or years; months and years keep the day of the month, clamped
to the target month's length (31 January + 1 month = 28 or 29 February).
"""

from __future__ import annotations

import calendar as _stdlib_calendar
from datetime import datetime, timedelta
from typing import Literal

Period = Literal["day", "month", "year"]


def add_periods(moment: datetime, count: int, period: Period | str) -> datetime:
    """`moment` moved by `count` periods (negative: back); the time of day is kept."""
    if period == "day":
        return moment + timedelta(days=count)
    if period == "month":
        return add_months(moment, count)
    if period == "year":
        return add_months(moment, 12 * count)
    raise ValueError(f"unknown billing period {period!r}")


def add_months(moment: datetime, months: int) -> datetime:
    """`moment` moved by whole calendar months, the day clamped to the target month's length."""
    year, month_index = divmod(moment.year * 12 + (moment.month - 1) + months, 12)
    month = month_index + 1
    day = min(moment.day, _stdlib_calendar.monthrange(year, month)[1])
    return moment.replace(year=year, month=month, day=day)


def period_end(start: datetime, length: int, period: Period | str) -> datetime | None:
    """When a period of `length` units begun at `start` ends; None when there is no period."""
    return add_periods(start, length, period) if length > 0 else None


def period_start(end: datetime, length: int, period: Period | str) -> datetime | None:
    """When a period of `length` units that ends at `end` began; None when there is no period."""
    return add_periods(end, -length, period) if length > 0 else None
