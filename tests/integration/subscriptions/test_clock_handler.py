"""The scheduled function (functions/events/process_schedule.py): what the rule's minute ticks do
in AWS, through the real handler under moto and the access guard, time moved with time-machine."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from functions.events import process_schedule
from tests.integration.storefront.test_checkout import payments
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import LambdaContext
from webstore.recurring import SCHEDULE_SHARDS

from .support import buy

START = datetime(2026, 6, 1, 12, tzinfo=UTC)
RENEWAL = datetime(2026, 7, 1, 12, tzinfo=UTC)
TICK = {"source": "aws.events", "detail-type": "Scheduled Event", "detail": {}}


class Invocation(LambdaContext):
    """A fresh invocation of the function's 300 s."""

    @staticmethod
    def get_remaining_time_in_millis() -> int:
        return 299_000


def emitted_metrics(output: str) -> dict[str, float]:
    """The EMF lines Powertools printed: metric name → value."""
    found: dict[str, float] = {}
    for line in output.splitlines():
        if '"_aws"' not in line:
            continue
        blob = json.loads(line)
        for directive in blob["_aws"]["CloudWatchMetrics"]:
            for metric in directive["Metrics"]:
                value = blob[metric["Name"]]
                found[metric["Name"]] = value[0] if isinstance(value, list) else value
    return found


def test_a_tick_renews_what_is_due_and_reports_how_late_the_schedule_is(
    demo: DemoStore, invoke: Invoke, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    with time_machine.travel(START, tick=False):
        first = buy(invoke, demo, {"package_id": 1})
    with time_machine.travel(RENEWAL - timedelta(minutes=1), tick=False):
        early = process_schedule.handler(TICK, Invocation())
    assert early == {"runs": []}
    capsys.readouterr()
    with time_machine.travel(RENEWAL + timedelta(minutes=12), tick=False):
        answer = process_schedule.handler(TICK, Invocation())
        again = process_schedule.handler(TICK, Invocation())
    (run,) = answer["runs"]
    assert run.endswith("1 item(s) due up to 2026-07-01T12:12:00+00:00: 1 renewal charged")
    assert again == {"runs": []}, "the second tick finds nothing: the item was done once"
    recorded = payments(invoke, demo)
    assert len(recorded) == 2
    assert {p["id"] for p in recorded} > {first["id"]}
    metrics = emitted_metrics(capsys.readouterr().out)
    # Nothing late: the overdue age is reported, the backlog count (billed per hour published) not.
    assert metrics["ScheduleOverdueSeconds"] == 0 and "ScheduleBacklog" not in metrics


def test_an_item_left_due_is_reported_as_overdue(
    demo: DemoStore, invoke: Invoke, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run without time left processes nothing; the metric then tells how late the item is."""
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    with time_machine.travel(START, tick=False):
        buy(invoke, demo, {"package_id": 1})

    class NoTimeLeft(LambdaContext):
        @staticmethod
        def get_remaining_time_in_millis() -> int:
            return int(process_schedule.SAFETY_SECONDS * 1000)

    capsys.readouterr()
    with time_machine.travel(RENEWAL + timedelta(minutes=11), tick=False):
        assert process_schedule.handler(TICK, NoTimeLeft()) == {"runs": []}
    metrics = emitted_metrics(capsys.readouterr().out)
    assert metrics["ScheduleBacklog"] == 1
    assert metrics["ScheduleOverdueSeconds"] == 11 * 60  # past the alarm's 10 minutes


def test_every_shard_is_worked_by_its_own_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[int, ...]] = []

    def fake_run_due(services: object, now: datetime, *, limit: int, shards: list[int]) -> object:
        seen.append(tuple(shards))

        class Report:
            outcomes: list[object] = []

        return Report()

    monkeypatch.setattr(process_schedule, "run_due", fake_run_due)

    class Services:
        def now(self) -> datetime:
            return RENEWAL

    assert process_schedule.process_due(Services(), lambda: 300.0) == []  # type: ignore[arg-type]
    assert sorted(seen) == [(shard,) for shard in range(SCHEDULE_SHARDS)]
