"""The dashboard page (the panel's home, `/`): HTTP-free, rendered from
templates/panel/dashboard/ (every value escaped).

The chart is server-rendered inline SVG (no script): revenue and payments per day as bars,
each with its figure as a tooltip (`<title>`), labelled for screen readers, and the same
figures as a table under it (the accessible fallback, folded in a `<details>`). The range
selector is plain links (`/?days=7`), so the page works without JavaScript and on a phone.
No style attributes: the panel's policy allows its one stylesheet by hash, so the SVG uses
presentation attributes only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from urllib.parse import quote

from webstore.admin.dashboard import (
    RANGES,
    Dashboard,
    DayPoint,
    dashboard,
    parse_range,
)
from webstore.admin.layout import panel_page
from webstore.admin.roles import Capability
from webstore.admin.sessions import StaffSession
from webstore.checkout.pages import money
from webstore.html import Markup, PageResult, fragment, macro
from webstore.services import Services

TITLE = "Dashboard"
CHART_WIDTH = 730  # SVG user units; the SVG scales to the page's width
CHART_HEIGHT = 120
BAR_COLOUR = "#1a5fb4"
PAYMENTS_COLOUR = "#1d6b32"
GRID_COLOUR = "#d9dce1"
MACROS = "panel/dashboard/macros.html"
MINUTE = "%Y-%m-%d %H:%M UTC"


def show(services: Services, session: StaffSession, days: str | None = None, done: str = "") -> PageResult:
    """The panel's home page: the dashboard over the range the query asked for (`?days=`; 422
    naming `days` for another). A role sees the recent payments and the failing deliveries only
    if it may open their sections (the rest is the dashboard's own capability). Round trips:
    one: the reads side by side, the session's check among them (the recent payments and the
    failing deliveries are read whatever the role, so that the role need not be known first)."""
    board = dashboard(services, session.account_id, services.now(), parse_range(days))
    if not session.may(Capability.PAYMENTS_READ):
        board = replace(board, recent_payments=None)
    if not session.may(Capability.WEBHOOKS_READ):
        board = replace(board, failed_deliveries=None, more_failed_deliveries=False)
    page = panel_page(
        TITLE, render(board), session=session, section="dashboard", store=board.store_name, done=done
    )
    return PageResult(200, page)


@dataclass(frozen=True)
class Bar:
    x: str
    y: str
    w: str
    h: str
    day: str
    figure: str


@dataclass(frozen=True)
class Chart:
    """A bar chart as templates/panel/dashboard/macros.html `bar_chart` draws it."""

    title: str
    summary: str
    colour: str
    bars: list[Bar]
    first: str
    last: str
    highest: str
    width: int = CHART_WIDTH
    height: int = CHART_HEIGHT
    grid: str = GRID_COLOUR


@dataclass(frozen=True)
class RecentPayment:
    href: str  # the transaction id as a path segment
    transaction_id: str
    player: str
    packages: str
    amount: str
    status: str
    when: str


@dataclass(frozen=True)
class FailingDelivery:
    event_type: str
    url: str
    attempts: int
    error: str
    when: str


@dataclass(frozen=True)
class DashboardView:
    """The dashboard's figures as its template shows them (amounts in the store's currency)."""

    ranges: list[tuple[int, str, bool]]
    figures: list[tuple[str, str]]
    revenue_chart: Chart
    payments_chart: Chart
    day_rows: list[tuple[str, int, str, int, str]]  # newest first
    trend: str
    last_month: str
    months: list[tuple[str, int, str, str]]
    top: list[tuple[str, int, str]]
    recent: list[RecentPayment] | None  # None: the role may not see payments
    failed: list[FailingDelivery] | None  # None: the role may not see webhooks


def render(board: Dashboard) -> Markup:
    """The page body of `board`."""
    currency = board.currency

    def cash(amount: Decimal) -> str:
        return money(amount, currency)

    totals = board.range_totals
    months = board.months
    change = months.revenue_change
    this_label = months.this_month.strftime("%B %Y")
    last_label = months.last_month.strftime("%B %Y")
    view = DashboardView(
        ranges=_ranges(board.days),
        figures=[
            ("Revenue", cash(totals.revenue)),
            ("Payments", str(totals.payments)),
            ("Refunds", f"{totals.refunds} ({cash(totals.refunded)})"),
            ("Chargebacks", f"{totals.chargebacks} ({cash(totals.charged_back)})"),
            ("Net", cash(totals.net)),
        ],
        revenue_chart=bar_chart(
            board.series,
            lambda p: p.revenue,
            lambda p: cash(p.revenue),
            f"Revenue per day, last {board.days} days",
            BAR_COLOUR,
        ),
        payments_chart=bar_chart(
            board.series,
            lambda p: Decimal(p.payments),
            lambda p: f"{p.payments} payment{'' if p.payments == 1 else 's'}",
            f"Payments per day, last {board.days} days",
            PAYMENTS_COLOUR,
        ),
        day_rows=[
            (p.day.isoformat(), p.payments, cash(p.revenue), p.refunds, cash(p.refunded))
            for p in reversed(board.series)
        ],
        trend="no revenue in the same days last month" if change is None else f"{change:+}% revenue",
        last_month=last_label,
        months=[
            (label, t.payments, cash(t.revenue), cash(t.net))
            for label, t in (
                (f"{this_label} so far", months.so_far),
                (f"{last_label}, same days", months.last_to_date),
                (f"{last_label}, whole month", months.last_in_full),
            )
        ],
        top=[(p.name, p.count, cash(p.revenue)) for p in board.top_packages],
        recent=None
        if board.recent_payments is None
        else [
            RecentPayment(
                href=quote(p.transaction_id, safe=""),
                transaction_id=p.transaction_id,
                player=p.username,
                packages=", ".join(line.name for line in p.lines),
                amount=money(p.amount, p.currency),
                status=p.status.description,
                when=p.created_at.strftime(MINUTE),
            )
            for p in board.recent_payments
        ],
        failed=None
        if board.failed_deliveries is None
        else [
            FailingDelivery(
                f.event_type, f.url, f.attempts, f.error, f.failed_at.strftime("%Y-%m-%d %H:%M UTC")
            )
            for f in board.failed_deliveries
        ],
    )
    return fragment("panel/dashboard/dashboard.html", board=board, view=view)


def _ranges(current: int) -> list[tuple[int, str, bool]]:
    return [(days, "1 year" if days == 365 else f"{days} days", days == current) for days in RANGES]


def range_links(current: int) -> Markup:
    """One link per range; the current one marked (`aria-current`), not a link."""
    return macro(MACROS, "range_links", _ranges(current))


def draw(chart: Chart) -> Markup:
    """`chart` as the page draws it (inline SVG)."""
    return macro(MACROS, "bar_chart", chart)


def bar_chart(
    points: Sequence[DayPoint],
    value: Callable[[DayPoint], Decimal],
    describe: Callable[[DayPoint], str],
    title: str,
    colour: str,
) -> Chart:
    """Bars of `value` per day, scaled to the highest; each bar's tooltip says its day and
    figure. The SVG is an image to assistive technology, named by `title` and its summary."""
    values = [max(value(p), Decimal(0)) for p in points]
    top = max(values, default=Decimal(0))
    width = Decimal(CHART_WIDTH) / max(len(points), 1)
    gap = width / 5 if width > 3 else Decimal(0)
    bars = []
    for index, (point, amount) in enumerate(zip(points, values, strict=True)):
        height = (amount / top * CHART_HEIGHT) if top > 0 else Decimal(0)
        if amount > 0:
            height = max(height, Decimal(1))  # a small day still shows
        bars.append(
            Bar(
                x=_n(index * width + gap / 2),
                y=_n(CHART_HEIGHT - height),
                w=_n(width - gap),
                h=_n(height),
                day=point.day.isoformat(),
                figure=describe(point),
            )
        )
    busiest = max(points, key=value, default=None)
    summary = (
        f"{title}. Highest: {describe(busiest)} on {busiest.day.isoformat()}."
        if busiest is not None and top > 0
        else f"{title}. Nothing yet."
    )
    return Chart(
        title=title,
        summary=summary,
        colour=colour,
        bars=bars,
        first=points[0].day.isoformat() if points else "",
        last=points[-1].day.isoformat() if points else "",
        highest=describe(busiest) if busiest is not None and top > 0 else "nothing yet",
    )


def _n(number: Decimal | int) -> str:
    """An SVG coordinate: two decimals at most, no exponent."""
    return f"{Decimal(number):.2f}".rstrip("0").rstrip(".")
