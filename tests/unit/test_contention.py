"""The one retry policy for contention (webstore.contention): how many attempts, the pauses
between them, and the time budget."""

from __future__ import annotations

import random

from webstore import contention


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_the_first_attempt_is_at_once_and_each_later_one_waits_a_growing_jittered_pause() -> None:
    clock = Clock()
    made = list(contention.attempts(5, clock=clock, sleep=clock.sleep, rng=random.Random(7)))
    assert made == [0, 1, 2, 3, 4]
    assert len(clock.slept) == 4
    for attempt, pause in enumerate(clock.slept, start=1):
        assert 0 <= pause <= contention.PAUSE_STEP_SECONDS * attempt


def test_by_default_a_write_tries_up_to_the_policys_attempts() -> None:
    clock = Clock()
    assert len(list(contention.attempts(clock=clock, sleep=clock.sleep))) == contention.ATTEMPTS


def test_no_attempt_starts_once_the_time_budget_is_spent() -> None:
    clock = Clock()
    made = []
    for attempt in contention.attempts(clock=clock, sleep=clock.sleep, budget_seconds=1.0):
        made.append(attempt)
        clock.now += 0.4  # each attempt's reads and transaction take 0.4 s
    assert made == [0, 1, 2]  # the fourth would start at 1.2 s
