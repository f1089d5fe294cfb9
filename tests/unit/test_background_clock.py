"""`webstore serve`'s clock: runs at once and then every interval, survives a failing run, and
stops cleanly (issue 12, build item 3)."""

from __future__ import annotations

import threading
import time

import pytest

from infra.background_clock import BackgroundClock, start_processor_clock


def wait_until(condition: object, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.01)


def test_a_failing_run_is_logged_and_the_next_run_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    calls: list[int] = []

    def tick() -> None:
        calls.append(len(calls))
        if len(calls) == 2:
            raise RuntimeError("one item broke this run")

    clock = BackgroundClock(tick, interval=0.01).start()
    try:
        wait_until(lambda: len(calls) >= 4)
    finally:
        clock.stop()
    assert clock.failures == 1
    assert not clock.running
    assert "clock run failed; the next run goes on" in caplog.text


def test_the_first_run_is_at_once_and_stop_waits_for_a_run_in_progress() -> None:
    started, release = threading.Event(), threading.Event()
    finished: list[bool] = []

    def tick() -> None:
        started.set()
        release.wait(5)
        finished.append(True)

    clock = BackgroundClock(tick, interval=3600).start()
    assert started.wait(2), "the first run does not wait an interval"
    stopper = threading.Thread(target=clock.stop)
    stopper.start()
    time.sleep(0.05)
    assert stopper.is_alive(), "stop waits for the run in progress"
    release.set()
    stopper.join(5)
    assert finished == [True] and not clock.running
    assert clock.runs == 1


def test_an_interval_of_zero_turns_the_clock_off() -> None:
    assert start_processor_clock(0) is None
    with pytest.raises(ValueError, match="positive"):
        BackgroundClock(lambda: None, interval=0)
