"""The daily reconciliation as a clock item (webstore.discord.daily) through `run_due`, the
clock's use case (`webstore clock run`, the scheduled function), under time-machine: once a day
per store with Discord connected, claimed like every schedule item, so an overlapping run does
nothing; drift repaired (a role removed by hand in Discord comes back)."""

from __future__ import annotations

from datetime import timedelta

import time_machine

from tests.integration.subscriptions.support import buy, run
from tests.support.demo import DemoStore
from tests.support.discord_standin import StandInDiscord
from tests.support.invocation import Invoke
from webstore.recurring import ScheduleKind
from webstore.repo.discord import DiscordRepository
from webstore.repo.schedule import ScheduleRepository, key_of_sk
from webstore.services import get_services
from webstore.subscriptions.processor import Outcome, OutcomeKind

from .conftest import GUILD, STEVE_DISCORD, SUPPORTER, VIP_ROLE
from .test_consumer import ACCOUNT, START, connect, connected  # noqa: F401  (the fixture)
from .test_role_sync import VIP, set_up


def daily(outcomes: list[Outcome]) -> list[Outcome]:
    return [o for o in outcomes if o.reference == "discord"]


def test_the_clock_reconciles_once_a_day_and_an_overlapping_run_does_nothing(
    demo: DemoStore,
    invoke: Invoke,
    connected: StandInDiscord,  # noqa: F811
) -> None:
    discord = connected
    with time_machine.travel(START, tick=False) as traveller:
        connect(discord)
        app = DiscordRepository(demo.table).app(ACCOUNT)
        assert app is not None and app.reconcile_sk  # scheduled with the application
        set_up(discord)
        buy(invoke, demo, {"package_id": VIP})  # no event delivered here: the roles drift
        assert discord.roles_of(GUILD, STEVE_DISCORD) == set()
        assert daily(run(START + timedelta(hours=23)).outcomes) == []  # not due yet

        day1 = START + timedelta(days=1, minutes=1)
        traveller.move_to(day1)
        outcomes = daily(run(day1).outcomes)
        assert [o.kind for o in outcomes] == [OutcomeKind.DISCORD_RECONCILED]
        assert outcomes[0].detail == "Reconciled 1 player(s): 2 change(s) made"
        assert discord.roles_of(GUILD, STEVE_DISCORD) == {VIP_ROLE, SUPPORTER}
        assert daily(run(day1).outcomes) == []  # done for the day: the next item is tomorrow

        discord.guilds[GUILD].members[STEVE_DISCORD].discard(VIP_ROLE)  # removed by hand
        day2 = START + timedelta(days=2, minutes=1)
        traveller.move_to(day2)
        app = DiscordRepository(demo.table).app(ACCOUNT)
        assert app is not None
        item_key = key_of_sk(ACCOUNT, "discord", app.reconcile_sk)
        assert ScheduleKind.DISCORD.value in item_key.sk
        # Another clock run holds the item: this one does nothing with it.
        assert ScheduleRepository(demo.table).claim(item_key, "other-run", day2 + timedelta(minutes=5), day2)
        assert [o.kind for o in daily(run(day2).outcomes)] == [OutcomeKind.BUSY]
        assert discord.roles_of(GUILD, STEVE_DISCORD) == {SUPPORTER}
        # Its claim lapsed (that run died): the next run does it, once.
        later = day2 + timedelta(minutes=10)
        traveller.move_to(later)
        assert [o.kind for o in daily(run(later).outcomes)] == [OutcomeKind.DISCORD_RECONCILED]
        assert discord.roles_of(GUILD, STEVE_DISCORD) == {VIP_ROLE, SUPPORTER}

        # A clock run "as of" ten days later reconciles once, not once per missed day.
        far = START + timedelta(days=12)
        traveller.move_to(far)
        assert len(daily(run(far).outcomes)) == 1
        app = DiscordRepository(get_services().table).app(ACCOUNT)
        assert app is not None and "discord" in app.reconcile_sk


def test_saving_the_application_again_keeps_one_daily_item(
    demo: DemoStore,
    connected: StandInDiscord,  # noqa: F811
) -> None:
    with time_machine.travel(START, tick=False):
        connect(connected)
        connect(connected)  # saved again: the same item
        later = START + timedelta(days=1, minutes=1)
        assert [o.kind for o in daily(run(later).outcomes)] == [OutcomeKind.DISCORD_RECONCILED]
