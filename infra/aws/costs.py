"""What a deployed stage costs standing idle, read from its synthesized templates at list prices
(us-east-1, per month; docs/deploy.md, "What an idle stage costs"). The infra tests compute it
from the template, so the figure in the docs cannot drift from what the stack creates.

Billed by the month whatever the traffic: an alarm per metric it reads, a Secrets Manager secret,
a customer-managed KMS key, a dashboard. Counted at $0 so the table shows them: the shop's
CloudFront distribution and its assets bucket (billed per request, per GB out and per GB-month
stored: the static files are a few hundred KB). Plus what the stage does by itself when nobody uses it:
the clock (an EventBridge rule, free) invokes the subscription processor every minute, which
publishes one custom metric (ScheduleOverdueSeconds; the others only when not zero) and writes a
few log lines. Everything else (functions, APIs, the table on demand, queues, the bus, the pipe,
topics) is billed per request or per GB stored, which an idle stage barely has.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

# List prices, USD per month (us-east-1), without the free tier.
ALARM_METRIC = Decimal("0.10")  # standard resolution, per metric an alarm reads
SECRET = Decimal("0.40")
KMS_KEY = Decimal("1.00")
DASHBOARD = Decimal("3.00")
CUSTOM_METRIC = Decimal("0.30")  # per metric published every hour of the month
LAMBDA_REQUEST = Decimal("0.20") / 1_000_000
LAMBDA_GB_SECOND_ARM = Decimal("0.0000133334")
LOG_INGESTION_GB = Decimal("0.50")
# The clock's idle runs: one a minute; each reads the schedule's shards and reports lateness.
CLOCK_RUNS = 60 * 24 * 30
CLOCK_RUN_SECONDS = Decimal("0.15")  # billed duration of an idle run, rounded up
CLOCK_LOG_BYTES = 1_500  # its START/END/REPORT lines, the summary and the metric line
CLOCK_CUSTOM_METRICS = 1  # ScheduleOverdueSeconds
CENT_HUNDREDTH = Decimal("0.0001")
NO_STANDING_CHARGE = Decimal(0)  # billed per request, per GB out, per GB-month stored


@dataclass(frozen=True)
class CostLine:
    what: str
    count: int
    unit: Decimal
    note: str = ""

    @property
    def monthly(self) -> Decimal:
        return self.unit * self.count


def alarm_metrics(alarm: dict[str, Any]) -> int:
    """How many metrics an alarm reads (a metric-math alarm: each metric it uses)."""
    metrics = alarm.get("Metrics")
    if metrics is None:
        return 1
    return sum(1 for m in metrics if "MetricStat" in m) or 1


def standing_lines(templates: Iterable[dict[str, Any]], *, clock_memory_mb: int) -> list[CostLine]:
    """Every standing cost line of a stage: its templates' billed resources and the clock."""
    resources = [r for t in templates for r in t.get("Resources", {}).values()]

    def count(kind: str) -> int:
        return sum(1 for r in resources if r["Type"] == kind)

    alarms = [r["Properties"] for r in resources if r["Type"] == "AWS::CloudWatch::Alarm"]
    gb_seconds = Decimal(clock_memory_mb) / 1024 * CLOCK_RUN_SECONDS * CLOCK_RUNS
    return [
        CostLine("CloudWatch alarm metrics", sum(alarm_metrics(a) for a in alarms), ALARM_METRIC),
        CostLine("Secrets Manager secrets", count("AWS::SecretsManager::Secret"), SECRET),
        CostLine("KMS customer-managed keys", count("AWS::KMS::Key"), KMS_KEY),
        CostLine("CloudWatch dashboards", count("AWS::CloudWatch::Dashboard"), DASHBOARD),
        CostLine("CloudFront distributions", count("AWS::CloudFront::Distribution"), NO_STANDING_CHARGE),
        CostLine("S3 buckets", count("AWS::S3::Bucket"), NO_STANDING_CHARGE),
        CostLine("custom metrics (the clock)", CLOCK_CUSTOM_METRICS, CUSTOM_METRIC),
        CostLine("clock invocations", CLOCK_RUNS, LAMBDA_REQUEST),
        CostLine(
            "clock compute (GB-s, arm64)", 1, (gb_seconds * LAMBDA_GB_SECOND_ARM).quantize(Decimal("0.0001"))
        ),
        CostLine(
            "clock log ingestion (GB)",
            1,
            (Decimal(CLOCK_LOG_BYTES * CLOCK_RUNS) / 1024**3 * LOG_INGESTION_GB).quantize(CENT_HUNDREDTH),
        ),
    ]


def idle_cost(lines: Iterable[CostLine]) -> Decimal:
    return sum((line.monthly for line in lines), Decimal(0)).quantize(Decimal("0.01"))
