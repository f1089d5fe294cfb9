"""Panel → Tax report: tax collected by buyer country and rate, net sales and refunds for a
quarter or any range of days (webstore.invoices.report), and the same as CSV. One round trip
(the payments of the period and the store, side by side; more only past a page per status)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from urllib.parse import urlencode

from webstore.admin.flow import PanelPage
from webstore.admin.views.money import body, titled
from webstore.errors import Invalid
from webstore.invoices import report
from webstore.services import Services

TITLE = "Tax report"


@dataclass(frozen=True)
class Chosen:
    """What the period form holds (as typed, for showing it again)."""

    quarter: str = ""
    start: str = ""
    end: str = ""


def report_page(services: Services, account_id: int, query: Mapping[str, str], today: date) -> PanelPage:
    chosen = Chosen(query.get("quarter", ""), query.get("from", ""), query.get("to", ""))
    quarters = _recent_quarters(today)
    try:
        period = report.parse_period(query, today)
    except Invalid as error:
        content = body("panel/tax_report/report.html", chosen=chosen, quarters=quarters, report=None, csv="")
        return titled(TITLE, content, "taxreport", error=error)
    found = report.tax_report(services, account_id, period)
    if chosen.start or chosen.end:
        csv_query = {"from": chosen.start, "to": chosen.end}
    else:
        csv_query = {"quarter": period.label}
    content = body(
        "panel/tax_report/report.html",
        chosen=chosen if (chosen.quarter or chosen.start) else Chosen(quarter=period.label),
        quarters=quarters,
        report=found,
        total=found.total(),
        csv=f"/tax-report.csv?{urlencode(csv_query)}",
    )
    return titled(TITLE, content, "taxreport")


def report_file(
    services: Services, account_id: int, query: Mapping[str, str], today: date
) -> tuple[str, str]:
    """(filename, CSV text) of the period the query names (422 naming the field otherwise)."""
    found = report.tax_report(services, account_id, report.parse_period(query, today))
    return report.csv_filename(found), report.report_csv(found)


def _recent_quarters(today: date) -> list[str]:
    year, number = today.year, (today.month - 1) // 3 + 1
    found = []
    for _ in range(8):
        found.append(f"{year}-Q{number}")
        year, number = (year - 1, 4) if number == 1 else (year, number - 1)
    return found
