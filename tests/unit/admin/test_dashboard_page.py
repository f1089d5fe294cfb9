"""The dashboard page's body: escaped player input, a well-formed SVG chart with its text
fallback, the range links, and the empty states."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from webstore.admin.dashboard import Dashboard, DayPoint, MonthComparison, TopPackage, Totals
from webstore.admin.dashboard_page import bar_chart, draw, range_links, render
from webstore.repo.payments import PaymentLine, PaymentRecord
from webstore.repo.webhooks import FailedDelivery

TODAY = date(2026, 3, 10)
EVIL = '<script>alert("x")</script>'


def payment(username: str, package: str) -> PaymentRecord:
    line = PaymentLine(
        package_id=1, category_id=1, name=package, quantity=1, base_price=Decimal(1), price=Decimal(1),
        username_id=1, username=username, uuid="u",
    )  # fmt: skip
    at = datetime(2026, 3, 10, 9, tzinfo=UTC)
    return PaymentRecord(
        id=1, transaction_id="tbx-1-0a0b0c0d", account_id=1, amount=Decimal("4.99"), currency="EUR",
        gateway="manual", email="", username_id=1, username=username, uuid="u", lines=[line],
        idempotency_key="k", created_at=at, updated_at=at,
    )  # fmt: skip


def board(**changes: object) -> Dashboard:
    series = [
        DayPoint(TODAY - timedelta(days=back), back % 3, Decimal(back % 3) * Decimal("4.99"), 0, Decimal(0))
        for back in range(6, -1, -1)
    ]
    fields: dict[str, object] = {
        "store_name": "Craft",
        "currency": "EUR",
        "days": 7,
        "series": series,
        "range_totals": Totals(payments=6, revenue=Decimal("29.94")),
        "months": MonthComparison(
            date(2026, 3, 1),
            date(2026, 2, 1),
            Totals(2, Decimal(10)),
            Totals(1, Decimal(5)),
            Totals(3, Decimal(9)),
        ),
        "top_packages": [TopPackage(1, EVIL, 3, Decimal("14.97"))],
        "recent_payments": [payment(EVIL, "VIP & more")],
        "active_subscriptions": 4,
        "failed_deliveries": [
            FailedDelivery(
                event_id="e",
                event_type="payment.completed",
                endpoint_id=1,
                url="https://hooks.example/<x>",
                attempts=3,
                failed_at=datetime(2026, 3, 10, 8, tzinfo=UTC),
                error=EVIL,
            )
        ],
        "more_failed_deliveries": True,
    }
    fields.update(changes)
    return Dashboard(**fields)  # type: ignore[arg-type]


def test_what_players_and_receivers_typed_is_escaped_everywhere() -> None:
    body = render(board())
    assert "<script" not in body
    assert body.count("&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") == 3  # package, player, error
    assert "VIP &amp; more" in body and "https://hooks.example/&lt;x&gt;" in body


def test_the_chart_is_well_formed_svg_with_a_bar_per_day_and_a_table_fallback() -> None:
    body = render(board())
    svgs = re.findall(r"<svg.*?</svg>", body, flags=re.S)
    assert len(svgs) == 2
    revenue = ET.fromstring(svgs[0])
    bars = revenue.findall("{http://www.w3.org/2000/svg}rect")
    assert len(bars) == 7 and revenue.get("role") == "img"
    heights = [float(b.get("height", "")) for b in bars]
    assert max(heights) == 120 and heights.count(0) == 3  # days without revenue: no bar
    assert "Highest: €9.98 EUR" in (revenue.get("aria-label") or "")
    assert "2026-03-09: €4.99 EUR" in svgs[0]
    assert "style=" not in body  # the panel's policy allows no inline style attributes
    assert "<caption>Revenue and payments per day, last 7 days</caption>" in body
    assert body.count('<th scope="row">2026-03-') == 7


def test_an_empty_range_draws_no_bars_and_says_so() -> None:
    quiet = [DayPoint(TODAY, 0, Decimal(0), 0, Decimal(0))]
    chart = draw(bar_chart(quiet, lambda p: p.revenue, lambda p: str(p.revenue), "Revenue", "#000"))
    assert 'height="0"' in chart and "Nothing yet." in chart
    body = render(
        board(top_packages=[], recent_payments=[], failed_deliveries=[], more_failed_deliveries=False)
    )
    assert "No packages sold in this range yet." in body and "No payments yet." in body
    assert "every webhook delivery went through" in body


def test_the_range_links_mark_the_current_range() -> None:
    links = range_links(30)
    assert '<strong aria-current="page">30 days</strong>' in links
    assert '<a href="/?days=7">7 days</a>' in links and '<a href="/?days=365">1 year</a>' in links


def test_recent_payments_link_to_their_page_and_failures_to_the_webhooks_page() -> None:
    body = render(board())
    assert '<a href="/payments/tbx-1-0a0b0c0d">tbx-1-0a0b0c0d</a>' in body
    assert '<a href="/webhooks">' in body and "More are failing than shown here." in body
    assert "+100.0% revenue against the same days of February 2026" in body
