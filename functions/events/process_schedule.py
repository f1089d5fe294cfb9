"""The clock in AWS: EventBridge Scheduler invokes this once a minute; it runs the subscription
processor (`webstore.subscriptions.processor.run_due`) as of now, as `webstore serve`'s
background clock and `webstore clock run` do.

A run works in chunks (`CHUNK` items per `run_due`) while its time lasts, so it never stops
between an item's claim and its act at the timeout (and if it did, the claim expires and the
next run finishes the item). Runs overlap when a burst outlasts a minute: claims are conditional,
so each item is processed by one run (docs/subscriptions.md, "Running the clock").

After the run it publishes how late the schedule is: `ScheduleOverdueSeconds` (the age of the
oldest item still due; 0 when none) and `ScheduleBacklog` (how many are due). The
"items overdue by more than 10 minutes" alarm watches the first; a missing value (the clock
stopped) counts as breaching.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from functions.declarations import WRITE_AND_PUBLISH, Consumer, Trigger
from functions.observability import consumer_handler, logger, metrics
from webstore.repo.schedule import ScheduleRepository
from webstore.services import Services, get_services
from webstore.subscriptions.processor import run_due

CONSUMER = Consumer(
    "process_schedule",
    Trigger.SCHEDULE,
    # Renewals charge and record payments, queue commands, move tiers and schedule items, and
    # publish payment and recurring-payment events: the table and the bus, nothing else.
    WRITE_AND_PUBLISH,
    "Runs the subscription processor over the schedule items that are due (every minute)",
    memory_mb=1024,
    timeout_seconds=300,
)
# Items per run_due call; a chunk must finish within SAFETY_SECONDS of the time left.
CHUNK = 250
SAFETY_SECONDS = 30.0


def process_due(services: Services, remaining_seconds: Any) -> list[str]:
    """Chunks of due items until none is left or the time is short; the summary of each."""
    summaries: list[str] = []
    slowest = 0.0
    while remaining_seconds() > SAFETY_SECONDS + 2 * slowest:
        started = time.monotonic()
        report = run_due(services, services.now(), limit=CHUNK)
        slowest = max(slowest, time.monotonic() - started)
        for outcome in report.outcomes:
            logger.info(outcome.describe())
        summaries.append(report.summary())
        if len(report.outcomes) < CHUNK:
            break
    return summaries


def publish_lateness(services: Services, now: datetime) -> None:
    backlog = ScheduleRepository(services.table).backlog(now)
    overdue = (now - backlog.oldest_due).total_seconds() if backlog.oldest_due else 0.0
    metrics.add_metric(name="ScheduleOverdueSeconds", unit=MetricUnit.Seconds, value=max(overdue, 0.0))
    metrics.add_metric(name="ScheduleBacklog", unit=MetricUnit.Count, value=backlog.count)


@consumer_handler
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    services = get_services()
    summaries = process_due(services, lambda: context.get_remaining_time_in_millis() / 1000)
    logger.info("schedule processed", extra={"runs": summaries})
    publish_lateness(services, services.now())
    return {"runs": summaries}
