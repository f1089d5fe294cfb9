"""The dashboard page (the panel's home, `/`): HTTP-free, every value escaped (`fill`).

The chart is server-rendered inline SVG (no script): revenue and payments per day as bars,
each with its figure as a tooltip (`<title>`), labelled for screen readers, and the same
figures as a table under it (the accessible fallback, folded in a `<details>`). The range
selector is plain links (`/?days=7`), so the page works without JavaScript and on a phone.
No style attributes: the panel's policy allows its one stylesheet by hash, so the SVG uses
presentation attributes only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from decimal import Decimal
from string import Template
from urllib.parse import quote

from webstore.admin.dashboard import (
    RANGES,
    Dashboard,
    DayPoint,
    MonthComparison,
    Totals,
    dashboard,
    parse_range,
)
from webstore.admin.layout import SWAP_CONTENT, panel_page
from webstore.admin.roles import Capability
from webstore.admin.sessions import StaffSession
from webstore.checkout.pages import money
from webstore.services import Services
from webstore.storefront.pages import PageResult, Safe, fill

TITLE = "Dashboard"
CHART_WIDTH = 730  # SVG user units; the SVG scales to the page's width
CHART_HEIGHT = 120
BAR_COLOUR = "#1a5fb4"
PAYMENTS_COLOUR = "#1d6b32"
GRID_COLOUR = "#d9dce1"

_PAGE = Template(
    """<div class="dashboard">
<h1>$store</h1>
<nav aria-label="Range" """
    + SWAP_CONTENT
    + """><p class="ranges">Show: $ranges</p></nav>
$other_currencies
<section aria-labelledby="range-title"><h2 id="range-title">Last $days days</h2>
<dl class="cards figures">$range_figures</dl>
$revenue_chart
$payments_chart
<details><summary>Figures per day (table)</summary>
<div class="scroll"><table><caption>Revenue and payments per day, last $days days</caption>
<thead><tr><th scope="col">Day</th><th scope="col" class="n">Payments</th>
<th scope="col" class="n">Revenue</th><th scope="col" class="n">Refunds</th>
<th scope="col" class="n">Refunded</th></tr></thead>
<tbody>$day_rows</tbody></table></div></details></section>
<section aria-labelledby="months-title"><h2 id="months-title">This month against last month</h2>
$months</section>
<section aria-labelledby="top-title"><h2 id="top-title">Top packages, last $days days</h2>$top</section>
$recent
<section aria-labelledby="subs-title"><h2 id="subs-title">Active subscriptions</h2>
<p class="figure">$subscriptions</p>
<p class="help">Subscriptions active or past due (a renewal being retried).</p></section>
$failed
</div>"""
)
_RECENT = Template("""<section aria-labelledby="recent-title"><h2 id="recent-title">Recent payments</h2>$table
<p><a href="/payments">All payments</a></p></section>""")
_FAILED = Template("""<section aria-labelledby="failed-title">
<h2 id="failed-title">Webhook deliveries failing</h2>$table
<p><a href="/webhooks">Webhooks and the delivery log</a></p></section>""")


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


def render(board: Dashboard) -> Safe:
    """The page body of `board`."""
    currency = board.currency

    def cash(amount: Decimal) -> str:
        return money(amount, currency)

    return fill(
        _PAGE,
        store=board.store_name,
        ranges=range_links(board.days),
        other_currencies=_other_currencies(board.other_currencies),
        days=str(board.days),
        range_figures=_figures(board.range_totals, cash),
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
        day_rows=_day_rows(board.series, cash),
        months=_months(board.months, cash),
        top=_top(board, cash),
        recent=_recent(board, cash),
        subscriptions=str(board.active_subscriptions),
        failed=_failed(board),
    )


def range_links(current: int) -> Safe:
    """One link per range; the current one marked (`aria-current`), not a link."""
    parts = []
    for days in RANGES:
        label = "1 year" if days == 365 else f"{days} days"
        if days == current:
            parts.append(fill(Template('<strong aria-current="page">$label</strong>'), label=label))
        else:
            parts.append(fill(Template('<a href="/?days=$days">$label</a>'), days=str(days), label=label))
    return Safe(" · ".join(parts))


def bar_chart(
    points: Sequence[DayPoint],
    value: Callable[[DayPoint], Decimal],
    describe: Callable[[DayPoint], str],
    title: str,
    colour: str,
) -> Safe:
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
            fill(
                Template(
                    '<rect x="$x" y="$y" width="$w" height="$h" fill="$colour">'
                    "<title>$day: $figure</title></rect>"
                ),
                x=_n(index * width + gap / 2),
                y=_n(CHART_HEIGHT - height),
                w=_n(width - gap),
                h=_n(height),
                colour=colour,
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
    first = points[0].day.isoformat() if points else ""
    last = points[-1].day.isoformat() if points else ""
    return fill(
        Template(
            '<figure class="chart"><figcaption>$title</figcaption>'
            '<svg role="img" aria-label="$summary" width="100%" height="$height" viewBox="0 0 $vw $height"'
            ' preserveAspectRatio="none" xmlns="http://www.w3.org/2000/svg">'
            '<line x1="0" y1="$height" x2="$vw" y2="$height" stroke="$grid" stroke-width="1"/>$bars</svg>'
            '<p class="axis"><span>$first</span> to <span>$last</span>; highest: $highest</p></figure>'
        ),
        title=title,
        summary=summary,
        height=str(CHART_HEIGHT),
        vw=str(CHART_WIDTH),
        grid=GRID_COLOUR,
        bars=Safe("".join(bars)),
        first=first,
        last=last,
        highest=describe(busiest) if busiest is not None and top > 0 else "nothing yet",
    )


def _n(number: Decimal | int) -> str:
    """An SVG coordinate: two decimals at most, no exponent."""
    return f"{Decimal(number):.2f}".rstrip("0").rstrip(".")


def _figures(totals: Totals, cash: Callable[[Decimal], str]) -> Safe:
    rows = [
        ("Revenue", cash(totals.revenue)),
        ("Payments", str(totals.payments)),
        ("Refunds", f"{totals.refunds} ({cash(totals.refunded)})"),
        ("Chargebacks", f"{totals.chargebacks} ({cash(totals.charged_back)})"),
        ("Net", cash(totals.net)),
    ]
    return Safe(
        "".join(fill(Template('<div class="card"><dt>$k</dt><dd>$v</dd></div>'), k=k, v=v) for k, v in rows)
    )


def _day_rows(points: Sequence[DayPoint], cash: Callable[[Decimal], str]) -> Safe:
    row = Template(
        '<tr><th scope="row">$day</th><td class="n">$payments</td><td class="n">$revenue</td>'
        '<td class="n">$refunds</td><td class="n">$refunded</td></tr>'
    )
    return Safe(
        "".join(
            fill(
                row,
                day=p.day.isoformat(),
                payments=str(p.payments),
                revenue=cash(p.revenue),
                refunds=str(p.refunds),
                refunded=cash(p.refunded),
            )
            for p in reversed(points)  # newest first
        )
    )


def _months(months: MonthComparison, cash: Callable[[Decimal], str]) -> Safe:
    change = months.revenue_change
    trend = "no revenue in the same days last month" if change is None else f"{change:+}% revenue"
    row = Template(
        '<tr><th scope="row">$label</th><td class="n">$payments</td><td class="n">$revenue</td>'
        '<td class="n">$net</td></tr>'
    )
    this_label = months.this_month.strftime("%B %Y")
    last_label = months.last_month.strftime("%B %Y")
    rows = [
        (f"{this_label} so far", months.so_far),
        (f"{last_label}, same days", months.last_to_date),
        (f"{last_label}, whole month", months.last_in_full),
    ]
    body = "".join(
        fill(row, label=label, payments=str(t.payments), revenue=cash(t.revenue), net=cash(t.net))
        for label, t in rows
    )
    return fill(
        Template(
            '<p class="trend">$trend against the same days of $last.</p>'
            '<div class="scroll"><table><thead><tr><th scope="col">Period</th>'
            '<th scope="col" class="n">Payments</th>'
            '<th scope="col" class="n">Revenue</th><th scope="col" class="n">Net</th></tr></thead>'
            "<tbody>$rows</tbody></table></div>"
        ),
        trend=trend,
        last=last_label,
        rows=Safe(body),
    )


def _top(board: Dashboard, cash: Callable[[Decimal], str]) -> Safe:
    if not board.top_packages:
        return Safe('<p class="help">No packages sold in this range yet.</p>')
    row = Template('<tr><td>$name</td><td class="n">$count</td><td class="n">$revenue</td></tr>')
    rows = "".join(
        fill(row, name=p.name, count=str(p.count), revenue=cash(p.revenue)) for p in board.top_packages
    )
    return fill(
        Template(
            '<div class="scroll"><table><thead><tr><th scope="col">Package</th>'
            '<th scope="col" class="n">Sold</th>'
            '<th scope="col" class="n">Revenue</th></tr></thead><tbody>$rows</tbody></table></div>'
        ),
        rows=Safe(rows),
    )


def _recent(board: Dashboard, cash: Callable[[Decimal], str]) -> Safe:
    if board.recent_payments is None:
        return Safe("")
    return fill(_RECENT, table=_recent_table(board, cash))


def _recent_table(board: Dashboard, cash: Callable[[Decimal], str]) -> Safe:
    if not board.recent_payments:
        return Safe('<p class="help">No payments yet.</p>')
    row = Template(
        '<tr><td><a href="/payments/$txn">$txn_text</a></td><td>$player</td><td>$packages</td>'
        '<td class="n">$amount</td><td>$status</td><td>$when</td></tr>'
    )
    rows = "".join(
        fill(
            row,
            txn=quote(p.transaction_id, safe=""),
            txn_text=p.transaction_id,
            player=p.username,
            packages=", ".join(line.name for line in p.lines),
            amount=money(p.amount, p.currency),
            status=p.status.description,
            when=p.created_at.strftime("%Y-%m-%d %H:%M UTC"),
        )
        for p in board.recent_payments
    )
    return fill(
        Template(
            '<div class="scroll"><table><thead><tr><th scope="col">Transaction</th>'
            '<th scope="col">Player</th>'
            '<th scope="col">Packages</th><th scope="col" class="n">Amount</th><th scope="col">Status</th>'
            '<th scope="col">When</th></tr></thead><tbody>$rows</tbody></table></div>'
        ),
        rows=Safe(rows),
    )


def _failed(board: Dashboard) -> Safe:
    if board.failed_deliveries is None:
        return Safe("")
    return fill(_FAILED, table=_failed_table(board))


def _failed_table(board: Dashboard) -> Safe:
    if not board.failed_deliveries:
        return Safe('<p class="help">None: every webhook delivery went through.</p>')
    row = Template(
        '<tr><td>$event_type</td><td>$url</td><td class="n">$attempts</td><td>$error</td><td>$when</td></tr>'
    )
    rows = "".join(
        fill(
            row,
            event_type=f.event_type,
            url=f.url,
            attempts=str(f.attempts),
            error=f.error,
            when=f.failed_at.strftime("%Y-%m-%d %H:%M UTC"),
        )
        for f in board.failed_deliveries
    )
    more = "<p>More are failing than shown here.</p>" if board.more_failed_deliveries else ""
    return fill(
        Template(
            '<div class="scroll"><table><thead><tr><th scope="col">Event</th><th scope="col">Endpoint</th>'
            '<th scope="col" class="n">Attempts</th><th scope="col">Last error</th>'
            '<th scope="col">Last failed</th></tr></thead><tbody>$rows</tbody></table></div>$more'
        ),
        rows=Safe(rows),
        more=Safe(more),
    )


def _other_currencies(currencies: Sequence[str]) -> Safe:
    if not currencies:
        return Safe("")
    return fill(
        Template('<p class="note">Amounts are in the store currency; sales in $others are left out.</p>'),
        others=", ".join(currencies),
    )
