"""Moving aside schedule items that keep failing (the schedule's dead letters), and back.

The processor releases an item whose act raised; the next run retries it. After `MAX_ATTEMPTS`
claims without finishing, retrying every minute only repeats the failure (and a renewal that
charges and then cannot record refunds every time), so the clock's runs (the scheduled function,
`webstore serve`'s background clock) park it: it leaves its shard for the dead-letter partition,
the logs name it, and the `ScheduleDeadLetters` metric (alarmed at 1) counts what rests there.
Its record still names it; `redrive` (`webstore clock parked --redrive`) makes it due again once
the cause is fixed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from webstore.recurring import SCHEDULE_SHARDS
from webstore.repo.schedule_dead_letters import ScheduleDeadLetterRepository
from webstore.services import Services

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 5


def park_failing(
    services: Services,
    now: datetime,
    *,
    shards: Iterable[int] | None = None,
    max_attempts: int = MAX_ATTEMPTS,
) -> list[dict[str, Any]]:
    """Park every due item of `shards` claimed `max_attempts` times or more; the parked items."""
    repo = ScheduleDeadLetterRepository(services.table)
    parked = []
    for shard in range(SCHEDULE_SHARDS) if shards is None else shards:
        for item in repo.failing(shard, now, max_attempts):
            if repo.park(item, now):
                logger.error(
                    "subscriptions: schedule item parked after %s attempts: %s %s (account %s)",
                    item["attempts"],
                    item["kind"],
                    item["reference"],
                    item["account_id"],
                )
                parked.append(item)
    return parked


def dead_letters(services: Services) -> list[dict[str, Any]]:
    return ScheduleDeadLetterRepository(services.table).parked()


def redrive(services: Services) -> int:
    """Every parked item back in its shard, due at its own time with its attempts reset."""
    repo = ScheduleDeadLetterRepository(services.table)
    items = repo.parked()
    for item in items:
        repo.redrive(item)
    return len(items)
