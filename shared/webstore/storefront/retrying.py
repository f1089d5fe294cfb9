"""Concurrent edits of one basket: retried inside the request, with jitter, before a 409.

A basket is written whole under a version condition; two tabs or a double-click race for it.
The basket use case already re-reads and re-applies a lost race a few times back to back; when
many writers race, they keep colliding in lockstep. `retry_contended` runs the whole use case
again after a short random pause (exponential, full jitter), so writers spread out and each
change lands; only a basket that stays contended through every round answers 409.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

from webstore.errors import Conflict

T = TypeVar("T")

ROUNDS = 6
BASE_SECONDS = 0.01
CAP_SECONDS = 0.2


class Contended(Conflict):
    """Other requests kept changing the basket while this one tried to (retryable)."""

    def __init__(self) -> None:
        super().__init__("The basket is being changed by another request; try again")


def retry_contended(
    call: Callable[[], T],
    *,
    rounds: int = ROUNDS,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
) -> T:
    """`call()`, run again after a jittered pause each time it raises Contended (at most
    `rounds` runs); the last Contended propagates (409)."""
    draw = rng or random
    for round_ in range(1, rounds + 1):
        try:
            return call()
        except Contended:
            if round_ == rounds:
                raise
            sleep(draw.uniform(0, min(CAP_SECONDS, BASE_SECONDS * 2**round_)))
    raise AssertionError("unreachable")
