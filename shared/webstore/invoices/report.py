"""The tax report: tax collected by buyer country and rate, net sales and refunds, for a quarter
or any range of UTC days — in the panel (panel → Tax report) and as CSV, ready for an EU OSS
return (docs/tax.md, "The tax report").

- **Sales** are the invoices of the period: every payment made in it (complete, refunded or
  charged back since: each was a sale when it was made), split by country and rate as its
  invoice is (webstore.invoices.taxes, the records' one reader of tax).
- **Refunds** are the credit notes of the period: every refund given in it, whichever period
  its payment was in, split as its credit note is. A refund is looked for among the payments of
  the period and of the REFUND_WINDOW_DAYS before it (Stripe refunds a card payment up to
  180 days after it).
- **Chargebacks** are not credit notes: a payment charged back counts as a sale; the owner
  corrects it in the return as their country allows (docs/tax.md).

The read: payments by time on GSI2, one Query per status partition, the three side by side,
each followed to its last page, with the store beside them: 1 round trip for a period whose
payments fit in one page per status (1 MB), one more per further page.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from webstore.domain.payment_status import PaymentStatus
from webstore.errors import Invalid
from webstore.invoices.taxes import payment_taxes, refund_taxes
from webstore.money import ZERO
from webstore.repo import start_read
from webstore.repo.payment_search import PaymentPeriodRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services

REFUND_WINDOW_DAYS = 180
MAX_DAYS = 366
_QUARTER = re.compile(r"^([0-9]{4})-Q([1-4])$")
CSV_COLUMNS = (
    "country",
    "rate_percent",
    "invoices",
    "net_sales",
    "tax",
    "credit_notes",
    "refunded_net",
    "refunded_tax",
    "net_after_refunds",
    "tax_after_refunds",
    "currency",
)


@dataclass(frozen=True)
class Period:
    first: date
    last: date
    label: str

    @property
    def days(self) -> tuple[str, str]:
        return self.first.strftime("%Y%m%d"), self.last.strftime("%Y%m%d")

    def holds(self, moment: datetime) -> bool:
        return self.first <= moment.astimezone(UTC).date() <= self.last


@dataclass
class ReportRow:
    country: str
    rate: Decimal
    invoices: int = 0
    net: Decimal = ZERO
    tax: Decimal = ZERO
    credit_notes: int = 0
    refunded_net: Decimal = ZERO
    refunded_tax: Decimal = ZERO

    @property
    def net_after(self) -> Decimal:
        return self.net - self.refunded_net

    @property
    def tax_after(self) -> Decimal:
        return self.tax - self.refunded_tax


@dataclass
class TaxReport:
    period: Period
    currency: str
    rows: list[ReportRow] = field(default_factory=list)

    def total(self) -> ReportRow:
        total = ReportRow("All", ZERO)
        for row in self.rows:
            total.invoices += row.invoices
            total.net += row.net
            total.tax += row.tax
            total.credit_notes += row.credit_notes
            total.refunded_net += row.refunded_net
            total.refunded_tax += row.refunded_tax
        return total


def quarter(year: int, number: int) -> Period:
    first = date(year, 3 * number - 2, 1)
    following = date(year + (number == 4), 1 if number == 4 else 3 * number + 1, 1)
    return Period(first, following - timedelta(days=1), f"{year}-Q{number}")


def current_quarter(today: date) -> str:
    return f"{today.year}-Q{(today.month - 1) // 3 + 1}"


def parse_period(fields: Mapping[str, str], today: date) -> Period:
    """`quarter` (YYYY-Qn), or `from` and `to` (YYYY-MM-DD, both included, at most a year);
    nothing: the current quarter. 422 naming the field otherwise."""
    start, end = (fields.get("from") or "").strip(), (fields.get("to") or "").strip()
    if start or end:
        first, last = _day(start, "from"), _day(end, "to")
        if last < first:
            raise Invalid("to must not be before from", field="to")
        if (last - first).days >= MAX_DAYS:
            raise Invalid(f"a range is at most {MAX_DAYS} days", field="to")
        return Period(first, last, f"{first.isoformat()} to {last.isoformat()}")
    text = (fields.get("quarter") or "").strip().upper() or current_quarter(today)
    match = _QUARTER.match(text)
    if not match or not 2000 <= int(match.group(1)) <= 2100:
        raise Invalid("quarter is a year and a quarter such as 2026-Q1", field="quarter")
    return quarter(int(match.group(1)), int(match.group(2)))


def _day(value: str, name: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError as error:
        raise Invalid(f"{name} must be a date (YYYY-MM-DD)", field=name) from error


def tax_report(services: Services, account_id: int, period: Period) -> TaxReport:
    """The report of `period` (see the module's docstring for what counts where)."""
    store_read = start_read(StoreRepository(services.table).store, account_id)
    since = (period.first - timedelta(days=REFUND_WINDOW_DAYS)).strftime("%Y%m%d")
    statuses = [s.value for s in PaymentStatus.stored()]
    payments = PaymentPeriodRepository(services.table).between(account_id, since, period.days[1], statuses)
    store = store_read.result()
    report = TaxReport(period, store.currency)
    rows: dict[tuple[str, Decimal], ReportRow] = {}

    def row(country: str, rate: Decimal) -> ReportRow:
        key = (country or "unknown", rate.normalize())
        return rows.setdefault(key, ReportRow(*key))

    for payment in payments:
        if payment.invoice is None:  # recorded before invoices existed: not in the books here
            continue
        taxes = payment_taxes(payment, store.tax)
        if period.holds(payment.created_at):
            for rate, (net, tax) in taxes.by_rate().items():
                found = row(taxes.country, rate)
                found.invoices += 1
                found.net += net
                found.tax += tax
        for index, refund in enumerate(payment.refunds):
            if not period.holds(refund.at):
                continue
            given = refund_taxes(taxes, payment, index)
            for rate, (net, tax) in given.by_rate.items():
                found = row(taxes.country, rate)
                found.credit_notes += 1
                found.refunded_net += net
                found.refunded_tax += tax
    report.rows = sorted(rows.values(), key=lambda r: (r.country, r.rate))
    return report


def report_csv(report: TaxReport) -> str:
    """The report as CSV (one row per country and rate, then the totals), amounts in the
    store's currency with a dot as decimal separator."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in [*report.rows, report.total()]:
        writer.writerow(
            [
                row.country,
                "" if row.country == "All" else f"{row.rate:f}",
                row.invoices,
                row.net,
                row.tax,
                row.credit_notes,
                row.refunded_net,
                row.refunded_tax,
                row.net_after,
                row.tax_after,
                report.currency,
            ]
        )
    return out.getvalue()


def csv_filename(report: TaxReport) -> str:
    return f"tax-report-{report.period.first.isoformat()}-{report.period.last.isoformat()}.csv"
