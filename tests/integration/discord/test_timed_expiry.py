"""A timed package's roles go at its expiry (docs/discord.md): the clock's expiry item writes a
`package.timed-expired` event with the timer's change (the outbox), and the Discord consumer's
use case takes the role away — no waiting for the next reconciliation."""

from __future__ import annotations

from datetime import timedelta

import time_machine

from tests.integration.subscriptions.support import buy, run
from tests.integration.subscriptions.test_endings import START, add_timed_package
from tests.support.demo import DemoStore
from tests.support.discord_standin import StandInDiscord
from tests.support.invocation import Invoke
from webstore.domain.discord import RoleRule
from webstore.event_types import TIMED_PACKAGE_EXPIRED
from webstore.events import DomainEvent
from webstore.repo.audit_log import Audit
from webstore.subscriptions.processor import OutcomeKind

from .conftest import GUILD, MVP_ROLE, STEVE_DISCORD, SUPPORTER, VIP_ROLE
from .test_role_sync import ACCOUNT, Deliver, set_up

FLY = 30


def test_a_timed_package_s_role_goes_at_its_expiry(
    demo: DemoStore, invoke: Invoke, discord: StandInDiscord, published: list[DomainEvent]
) -> None:
    add_timed_package(days=7)
    repo = set_up(discord)  # VIP → VIP + Supporter, Pet → Supporter
    repo.save_rule(
        ACCOUNT, RoleRule(FLY, GUILD, frozenset({MVP_ROLE})), Audit("o", "discord.rule", "t", START)
    )
    deliver = Deliver(discord, published)
    with time_machine.travel(START, tick=False) as traveller:
        buy(invoke, demo, {"package_id": FLY})
        deliver(START)
        assert discord.roles_of(GUILD, STEVE_DISCORD) == {MVP_ROLE}

        expired_at = START + timedelta(days=7, minutes=1)
        traveller.move_to(expired_at)
        assert [o.kind for o in run(expired_at).outcomes] == [OutcomeKind.TIMED_EXPIRY]
        [event] = [e for e in published if e.type == TIMED_PACKAGE_EXPIRED]
        assert event.subject["products"][0]["id"] == FLY
        deliver(expired_at)
        assert discord.roles_of(GUILD, STEVE_DISCORD) == set()  # at the expiry
        revoked = [c for c in discord.changes() if c[0] == "DELETE"]
        assert revoked == [("DELETE", f"/guilds/{GUILD}/members/{STEVE_DISCORD}/roles/{MVP_ROLE}")]
        assert run(expired_at).outcomes == []  # once: no second event
        assert [e.type for e in published].count(TIMED_PACKAGE_EXPIRED) == 1
    assert {VIP_ROLE, SUPPORTER}.isdisjoint(discord.roles_of(GUILD, STEVE_DISCORD))
