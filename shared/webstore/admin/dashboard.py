"""The panel's dashboard: revenue and payments per day over a range, this month against last,
the top packages of the range, the latest payments, the ongoing subscriptions and the webhook
deliveries that are failing.

Everything comes from items read by key or a bounded Query, in one round of parallel reads
(after the session's): the days' aggregates that fulfilment and status changes keep
(webstore.repo.daily_stats), the subscription count shards, the store item, the first page of
payments and the failing deliveries. So the dashboard reads O(days shown) items, never the
payments themselves. The arithmetic below is pure (tests/unit/admin/test_dashboard.py).
"""

from __future__ import annotations

import calendar
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal

from webstore.errors import Invalid, NotFound
from webstore.money import ZERO
from webstore.repo import start_read
from webstore.repo.daily_stats import DayFigures, utc_day
from webstore.repo.dashboard import DashboardRepository
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.repo.webhooks import FailedDelivery, WebhookRepository
from webstore.services import Services

RANGES = (7, 30, 90, 365)  # days a dashboard may show
DEFAULT_RANGE = 30
TOP_PACKAGES = 5
RECENT_PAYMENTS = 10
FAILED_DELIVERIES = 10


# --- the figures ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Totals:
    """Counts and amounts (in one currency) over some days."""

    payments: int = 0
    revenue: Decimal = ZERO
    refunds: int = 0
    refunded: Decimal = ZERO
    chargebacks: int = 0
    charged_back: Decimal = ZERO
    won_back: Decimal = ZERO

    @property
    def net(self) -> Decimal:
        """What stayed: revenue less refunds and chargebacks, chargebacks won back added again."""
        return self.revenue - self.refunded - self.charged_back + self.won_back


@dataclass(frozen=True)
class DayPoint:
    """One day of the chart."""

    day: date
    payments: int
    revenue: Decimal
    refunds: int
    refunded: Decimal


@dataclass(frozen=True)
class TopPackage:
    package_id: int
    name: str
    count: int
    revenue: Decimal


@dataclass(frozen=True)
class MonthComparison:
    """This month so far against last month: up to the same day of the month, and in full."""

    this_month: date  # its first day
    last_month: date
    so_far: Totals  # this month up to today
    last_to_date: Totals  # last month up to the same day (or its last day, if shorter)
    last_in_full: Totals

    @property
    def revenue_change(self) -> Decimal | None:
        """Percent change of revenue against the same days last month (None: nothing to compare)."""
        before = self.last_to_date.revenue
        if before == 0:
            return None
        return ((self.so_far.revenue - before) * 100 / before).quantize(Decimal("0.1"))


@dataclass(frozen=True)
class Dashboard:
    store_name: str
    currency: str
    days: int  # the range shown
    series: list[DayPoint]  # oldest first, one per day of the range, today last
    range_totals: Totals
    months: MonthComparison
    top_packages: list[TopPackage]
    recent_payments: list[PaymentRecord] | None  # None: not for this member's role
    active_subscriptions: int
    failed_deliveries: list[FailedDelivery] | None  # None: not for this member's role
    more_failed_deliveries: bool  # more fail than are listed
    other_currencies: list[str] = field(default_factory=list)  # sold in, not shown (a currency change)


# --- pure rules -------------------------------------------------------------------------------


def parse_range(value: str | int | None) -> int:
    """The range asked for (days), one of RANGES; absent: DEFAULT_RANGE; else 422 naming `days`."""
    if value is None or value == "":
        return DEFAULT_RANGE
    try:
        days = int(value)
    except ValueError:
        days = 0
    if days not in RANGES:
        raise Invalid(f"days is one of {', '.join(map(str, RANGES))}", field="days")
    return days


def range_days(today: date, days: int) -> list[date]:
    """The `days` days ending with `today`, oldest first."""
    return [today - timedelta(days=back) for back in range(days - 1, -1, -1)]


def month_start(day: date) -> date:
    return day.replace(day=1)


def previous_month_start(day: date) -> date:
    return (month_start(day) - timedelta(days=1)).replace(day=1)


def month_days(first: date, last_day: int | None = None) -> list[date]:
    """The days of `first`'s month (up to day `last_day`, capped at the month's length)."""
    length = calendar.monthrange(first.year, first.month)[1]
    end = length if last_day is None else min(last_day, length)
    return [first.replace(day=number) for number in range(1, end + 1)]


def days_to_read(today: date, days: int) -> list[date]:
    """Every day the dashboard needs: the range, this month so far and all of last month."""
    wanted = set(range_days(today, days))
    wanted.update(month_days(month_start(today), today.day))
    wanted.update(month_days(previous_month_start(today)))
    return sorted(wanted)


def totals(figures: Iterable[DayFigures], currency: str) -> Totals:
    """The sums over `figures`, amounts in `currency` (other currencies' amounts are left out)."""
    found = list(figures)
    return Totals(
        payments=sum(f.payments for f in found),
        revenue=sum((f.revenue.get(currency, ZERO) for f in found), ZERO),
        refunds=sum(f.refunds for f in found),
        refunded=sum((f.refunded.get(currency, ZERO) for f in found), ZERO),
        chargebacks=sum(f.chargebacks for f in found),
        charged_back=sum((f.charged_back.get(currency, ZERO) for f in found), ZERO),
        won_back=sum((f.won_back.get(currency, ZERO) for f in found), ZERO),
    )


def series(figures: Sequence[DayFigures], currency: str) -> list[DayPoint]:
    return [
        DayPoint(f.day, f.payments, f.revenue.get(currency, ZERO), f.refunds, f.refunded.get(currency, ZERO))
        for f in figures
    ]


def top_packages(figures: Iterable[DayFigures], currency: str, limit: int = TOP_PACKAGES) -> list[TopPackage]:
    """The packages that took the most in `currency` over `figures` (then the most units sold),
    each under the name of its latest sale."""
    counts: dict[int, int] = {}
    revenue: dict[int, Decimal] = {}
    names: dict[int, str] = {}
    for day in sorted(figures, key=lambda f: f.day):
        for package_id, sold in day.packages.items():
            counts[package_id] = counts.get(package_id, 0) + sold.count
            revenue[package_id] = revenue.get(package_id, ZERO) + sold.revenue.get(currency, ZERO)
            names[package_id] = sold.name or names.get(package_id, "")
    ranked = sorted(counts, key=lambda p: (-revenue[p], -counts[p], p))
    shown = [p for p in ranked if counts[p] > 0][:limit]
    return [TopPackage(p, names[p] or f"Package {p}", counts[p], revenue[p]) for p in shown]


def compare_months(by_day: dict[date, DayFigures], today: date, currency: str) -> MonthComparison:
    """This month so far against last month (same days, and in full) from the days' figures."""
    this_first, last_first = month_start(today), previous_month_start(today)

    def over(days: list[date]) -> Totals:
        return totals((by_day[d] for d in days if d in by_day), currency)

    return MonthComparison(
        this_month=this_first,
        last_month=last_first,
        so_far=over(month_days(this_first, today.day)),
        last_to_date=over(month_days(last_first, today.day)),
        last_in_full=over(month_days(last_first)),
    )


def other_currencies(figures: Iterable[DayFigures], currency: str) -> list[str]:
    """Currencies the days hold revenue in besides the store's (it changed currency meanwhile)."""
    return sorted({c for f in figures for c in f.revenue if c != currency})


# --- the use case -----------------------------------------------------------------------------


def dashboard(
    services: Services,
    account_id: int,
    now: datetime,
    days: int = DEFAULT_RANGE,
    *,
    payments: bool = True,
    deliveries: bool = True,
) -> Dashboard:
    """The dashboard of `account_id` as of `now` over the last `days` days (UTC): one round of
    reads side by side (the days, counters and store by key; two bounded Queries). `payments`,
    `deliveries`: whether to show (and read) the recent payments, the failing deliveries."""
    if days not in RANGES:
        raise Invalid(f"days is one of {', '.join(map(str, RANGES))}", field="days")
    today = utc_day(now)
    wanted = days_to_read(today, days)
    recent_read = (
        start_read(PaymentRepository(services.table).latest, account_id, RECENT_PAYMENTS)
        if payments
        else None
    )
    webhooks = WebhookRepository(services.table, services.secrets)
    failed_read = start_read(webhooks.failed, account_id, FAILED_DELIVERIES + 1) if deliveries else None
    items = DashboardRepository(services.table).read(account_id, wanted)
    recent = recent_read.result() if recent_read else None
    failed = failed_read.result() if failed_read else None
    if items.store is None:
        raise NotFound("Store not found")
    currency = items.store.currency
    by_day = {figures.day: figures for figures in items.days}
    shown = [by_day[day] for day in range_days(today, days)]
    return Dashboard(
        store_name=items.store.name,
        currency=currency,
        days=days,
        series=series(shown, currency),
        range_totals=totals(shown, currency),
        months=compare_months(by_day, today, currency),
        top_packages=top_packages(shown, currency),
        recent_payments=recent,
        active_subscriptions=max(0, items.active_subscriptions),
        failed_deliveries=failed[:FAILED_DELIVERIES] if failed is not None else None,
        more_failed_deliveries=failed is not None and len(failed) > FAILED_DELIVERIES,
        other_currencies=other_currencies(shown, currency),
    )
