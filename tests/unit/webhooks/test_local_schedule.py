"""The local stack's webhook retry schedule is AWS's: minutes to hours, then given up."""

from __future__ import annotations

import random

from webstore.webhooks.local import fixed_schedule
from webstore.webhooks.retry import MAX_RECEIVES, next_retry_delay


def test_the_local_schedule_is_the_sqs_one_and_lasts_hours() -> None:
    rng = random.Random(7)
    delays = [next_retry_delay(failed, jitter=rng) for failed in range(1, MAX_RECEIVES)]
    assert all(d is not None for d in delays)
    total = sum(d for d in delays if d is not None)
    assert 25 <= delays[0] <= 35  # the first retry after about 30 s, as SQS is told
    assert total > 4 * 3600  # hours, not the 31 s the local worker used to give up after
    assert next_retry_delay(MAX_RECEIVES) is None  # then the dead-letter queue / given up


def test_a_fixed_schedule_gives_up_after_its_steps() -> None:
    schedule = fixed_schedule((0.5, 1.0))
    assert [schedule(n) for n in (1, 2, 3)] == [0.5, 1.0, None]
