"""The daily reconciliation (docs/discord.md): once a day per store with Discord connected, every
linked player's roles are read from Discord and repaired (a role removed by hand, a member who
joined or rejoined the server since, a delivery that ran out of retries).

It is a schedule item (`ScheduleKind.DISCORD`, one per store, put when the application is first
saved: repo.discord), so the subscription clock runs it (`webstore clock run`, the scheduled
function in AWS, `serve`'s background clock) with the clock's claim: two overlapping runs do it
once. Done, the item is replaced by the next one a day later (past `now` when a clock run plays
days at once: one reconciliation, not one per missed day). An item the application no longer
points at (disconnected, or saved again with a new item) is dropped.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from webstore.discord import DiscordApi
from webstore.discord.app import api_of
from webstore.discord.sync import RECONCILE, sync_player
from webstore.recurring import ScheduleItem
from webstore.repo import Transaction
from webstore.repo.discord import RECONCILE_EVERY, DiscordRepository
from webstore.repo.schedule import ScheduleKey, ScheduleRepository
from webstore.services import Services


@dataclass(frozen=True)
class Reconciled:
    players: int
    calls: int  # changes Discord applied
    owed: int  # not applied: retry or refused (the log shows them)

    def describe(self) -> str:
        owed = f", {self.owed} not applied (see the log)" if self.owed else ""
        return f"Reconciled {self.players} player(s): {self.calls} change(s) made{owed}"


def reconcile_players(
    services: Services, api: DiscordApi, account_id: int, players: Iterable[int], now: datetime
) -> Reconciled:
    """These players' roles read from Discord and repaired ("Retry now", "Reconcile now", daily)."""
    count = calls = owed = 0
    for username_id in players:
        result = sync_player(services, api, account_id, username_id, now, trigger=RECONCILE, reconcile=True)
        count += 1
        calls += result.calls
        owed += sum(1 for e in result.entries if e.status in ("retry", "refused"))
    return Reconciled(count, calls, owed)


def run_daily(
    services: Services, key: ScheduleKey, item: ScheduleItem, claim: str, now: datetime
) -> Reconciled | None:
    """The clock's item (claimed by the caller under `claim`): every linked player reconciled,
    the next item put. None: stale (dropped)."""
    repo = DiscordRepository(services.table)
    app = repo.app(item.account_id)
    if app is None or app.reconcile_sk != key.sk:
        tx = Transaction(services.table)
        ScheduleRepository.add_done(tx, key, claim)
        tx.commit()
        return None
    done = reconcile_players(
        services, api_of(services, app), item.account_id, repo.linked_players(item.account_id), now
    )
    due = item.due_at + RECONCILE_EVERY
    while due <= now:
        due += RECONCILE_EVERY
    repo.reconciled(item.account_id, key, claim, key.sk, due)
    return done
