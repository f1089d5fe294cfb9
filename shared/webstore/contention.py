"""The one retry policy for contention: a write whose transaction lost a race (`Contention`:
another writer took the same ids, moved the stats, a goal, a subscription or a queue first)
reads again and builds its transaction again, after a short random pause that grows with each
attempt (full jitter), so racing writers spread out instead of colliding in lockstep.

    for attempt in contention.attempts():
        reads = …                     # read again (attempt 0 may use a read issued earlier)
        tx = …                        # build from what was read
        try:
            tx.commit()
        except Contention:
            continue
        return …
    raise Conflict("The store is busy; … try again")

It gives up after ATTEMPTS attempts or once TIME_BUDGET_SECONDS have passed since the first,
whichever comes first: well inside the functions' timeouts, so the caller still answers (and,
for a charge already taken, refunds) itself. A labelled condition (a coupon's limit, a gift
card's balance) is not contention: its domain error propagates at once.

Used by every write that retries on contention: payments (`payments.recording`, renewals,
upgrades, renewal completion), the id sequences (`repo.sequences`), the subscription
processor, the operator's command deletes and the name registry.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator

ATTEMPTS = 40
TIME_BUDGET_SECONDS = 8.0
# The pause before attempt n is uniform(0, n * PAUSE_STEP_SECONDS): 5 ms, 10 ms, … (at most 0.2 s).
PAUSE_STEP_SECONDS = 0.005


def attempts(
    limit: int = ATTEMPTS,
    *,
    budget_seconds: float = TIME_BUDGET_SECONDS,
    clock: Callable[[], float] | None = None,
    sleep: Callable[[float], None] | None = None,
    rng: random.Random | None = None,
) -> Iterator[int]:
    """The attempt numbers 0, 1, … of one write: the first at once, each later one after its
    jittered pause, none once `limit` were made or `budget_seconds` have passed."""
    clock = clock or time.monotonic
    sleep = sleep or time.sleep
    draw = rng or random
    give_up_at = clock() + budget_seconds
    for attempt in range(limit):
        if attempt:
            if clock() >= give_up_at:
                return
            sleep(draw.uniform(0, PAUSE_STEP_SECONDS * attempt))
        yield attempt
