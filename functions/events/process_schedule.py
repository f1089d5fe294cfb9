"""The clock in AWS: a schedule rule invokes this once a minute; it runs the subscription
processor (`webstore.subscriptions.processor.run_due`) as of now, as `webstore serve`'s
background clock and `webstore clock run` do.

Fan-out: one thread per schedule shard (`run_due(..., shards=[shard])`), so a burst is worked
`SCHEDULE_SHARDS` items at a time without two threads contending for one item. Each thread works
in chunks (`CHUNK` items per call) while the invocation's time lasts, so a run stops between
items, never at its timeout in the middle of one (and if it did, the claim expires and a later
run finishes the item). A burst that outlasts a minute is shared with the next minute's
invocations: claims are conditional, so each item is processed once (docs/subscriptions.md,
"Running the clock", has the arithmetic).

After the run it parks the items that keep failing (`webstore.subscriptions.dead_letters`) and
publishes how late the schedule is: `ScheduleOverdueSeconds` (the age of the oldest item still
due; 0 when none), `ScheduleBacklog` (how many are due) and `ScheduleDeadLetters` (how many are
parked). Alarms: overdue by more than 10 minutes (a missing value, the clock stopped, counts as
breaching), and any parked item.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from functions.declarations import WRITE, Access
from functions.events.declarations import Consumer, Trigger
from functions.observability import consumer_handler, logger, metrics
from webstore.recurring import SCHEDULE_SHARDS
from webstore.services import Services, get_services
from webstore.subscriptions.dead_letters import dead_letters, park_failing
from webstore.subscriptions.processor import backlog, run_due

CONSUMER = Consumer(
    "process_schedule",
    Trigger.SCHEDULE,
    # Renewals charge and record payments, queue commands, move tiers and schedule items, and
    # publish payment and recurring-payment events: the table and the bus, and the key that
    # opens the stores' gateway secrets (renewals charge each store's own Stripe account).
    WRITE | {Access.GATEWAY_KEY},
    "Runs the subscription processor over the schedule items that are due (every minute)",
    memory_mb=1024,
    timeout_seconds=300,
)
# Items per run_due call; a chunk must finish within SAFETY_SECONDS of the time left.
CHUNK = 100
SAFETY_SECONDS = 30.0


def process_shard(services: Services, shard: int, remaining_seconds: Callable[[], float]) -> list[str]:
    """Chunks of one shard's due items until none is left or time is short; one summary each."""
    summaries: list[str] = []
    slowest = 0.0
    while remaining_seconds() > SAFETY_SECONDS + 2 * slowest:
        started = time.monotonic()
        report = run_due(services, services.now(), limit=CHUNK, shards=[shard])
        slowest = max(slowest, time.monotonic() - started)
        for outcome in report.outcomes:
            logger.info(outcome.describe(), extra={"shard": shard, "outcome": outcome.kind.value})
        if report.outcomes:
            summaries.append(f"shard {shard}: {report.summary()}")
        if len(report.outcomes) < CHUNK:
            break
    return summaries


def process_due(services: Services, remaining_seconds: Callable[[], float]) -> list[str]:
    """Every shard at once, one thread each (in a copy of the invocation's context)."""
    contexts = [(contextvars.copy_context(), shard) for shard in range(SCHEDULE_SHARDS)]

    def work(context_and_shard: tuple[contextvars.Context, int]) -> list[str]:
        context, shard = context_and_shard
        return context.run(process_shard, services, shard, remaining_seconds)

    with ThreadPoolExecutor(max_workers=SCHEDULE_SHARDS, thread_name_prefix="shard") as pool:
        return [summary for summaries in pool.map(work, contexts) for summary in summaries]


def publish_lateness(services: Services, now: datetime) -> None:
    late = backlog(services, now)
    overdue = (now - late.oldest_due).total_seconds() if late.oldest_due else 0.0
    # Every run reports the overdue age (no report is the clock stopped: its alarm breaches); the
    # counts only when there are some: CloudWatch bills a custom metric per hour it is published,
    # and their alarms read no data as none (docs/deploy.md, "What an idle stage costs").
    metrics.add_metric(name="ScheduleOverdueSeconds", unit=MetricUnit.Seconds, value=max(overdue, 0.0))
    if late.count:
        metrics.add_metric(name="ScheduleBacklog", unit=MetricUnit.Count, value=late.count)
    parked = len(dead_letters(services))
    if parked:
        metrics.add_metric(name="ScheduleDeadLetters", unit=MetricUnit.Count, value=parked)


@consumer_handler
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    services = get_services()
    summaries = process_due(services, lambda: context.get_remaining_time_in_millis() / 1000)
    logger.info("schedule processed", extra={"runs": summaries or ["nothing due"]})
    park_failing(services, services.now())
    publish_lateness(services, services.now())
    return {"runs": summaries}
