"""Items that keep failing are parked (the schedule's dead letters) and can be redriven: through
the scheduled function's handler under moto and the access guard, time moved with time-machine."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from functions.events import process_schedule
from infra.cli import main
from tests.integration.storefront.test_checkout import payments
from tests.support.demo import DemoStore
from tests.support.environment import TABLE
from tests.support.invocation import Invoke
from webstore.checkout.gateway import SandboxGateway
from webstore.services import get_services
from webstore.subscriptions.dead_letters import MAX_ATTEMPTS, dead_letters, redrive
from webstore.subscriptions.processor import backlog

from .support import buy, recurring, run
from .test_clock_handler import TICK, Invocation, emitted_metrics

START = datetime(2026, 6, 1, 12, tzinfo=UTC)
RENEWAL = datetime(2026, 7, 1, 12, tzinfo=UTC)


def test_an_item_failing_every_minute_is_parked_then_redriven(
    demo: DemoStore, invoke: Invoke, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    with time_machine.travel(START, tick=False):
        first = buy(invoke, demo, {"package_id": 1})

    def broken(self: SandboxGateway, request: object) -> None:
        raise ConnectionError("the gateway is down")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(SandboxGateway, "charge_saved", broken)
        for minute in range(MAX_ATTEMPTS):
            with time_machine.travel(RENEWAL + timedelta(minutes=minute), tick=False):
                capsys.readouterr()
                (summary,) = process_schedule.handler(TICK, Invocation())["runs"]
                assert summary.endswith("1 failed")
                parked_now = emitted_metrics(capsys.readouterr().out).get("ScheduleDeadLetters", 0)
                assert parked_now == (1 if minute == MAX_ATTEMPTS - 1 else 0), minute
    services = get_services()
    (parked,) = dead_letters(services)
    assert (parked["reference"], parked["attempts"]) == (first["txn_id"], MAX_ATTEMPTS)
    later = RENEWAL + timedelta(hours=1)
    assert backlog(services, later).count == 0, "no run reads a parked item"
    assert run(later).outcomes == []
    assert len(payments(invoke, demo)) == 1

    capsys.readouterr()
    where = ["--table", TABLE, "--region", "us-east-1"]
    assert main(["clock", "parked", *where]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0].startswith(f"renewal: account 1 {first['txn_id']} (due 2026-07-01T12:00:00")
    assert f"{MAX_ATTEMPTS} attempts, parked " in listed[0]
    assert listed[1] == "1 item(s) parked: fix the cause, then --redrive"
    assert main(["clock", "parked", *where, "--redrive"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 item(s) put back in the schedule"
    assert dead_letters(services) == []
    assert redrive(services) == 0
    with time_machine.travel(later, tick=False):
        [outcome] = run(later).outcomes
    assert outcome.describe().startswith(f"renewal charged: account 1 {first['txn_id']}")
    assert len(payments(invoke, demo)) == 2
    assert recurring(first["txn_id"]).payment_sequence == 2


def test_a_failure_that_clears_up_is_not_parked(demo: DemoStore, invoke: Invoke) -> None:
    with time_machine.travel(START, tick=False):
        buy(invoke, demo, {"package_id": 1})

    def broken(self: SandboxGateway, request: object) -> None:
        raise ConnectionError("the gateway is down")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(SandboxGateway, "charge_saved", broken)
        for minute in range(MAX_ATTEMPTS - 1):
            with time_machine.travel(RENEWAL + timedelta(minutes=minute), tick=False):
                process_schedule.handler(TICK, Invocation())
    with time_machine.travel(RENEWAL + timedelta(minutes=MAX_ATTEMPTS), tick=False):
        (summary,) = process_schedule.handler(TICK, Invocation())["runs"]
    assert summary.endswith("1 renewal charged")
    assert dead_letters(get_services()) == []
