"""Roles that follow the purchase (webstore.discord.sync) through the real checkout, the
subscription clock and the plugin's status changes, against the Discord stand-in: granted once,
never re-sent on a renewal, kept while another package grants them, removed on every end."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import time_machine

from tests.integration.storefront.test_checkout import payments
from tests.integration.subscriptions.support import buy, run
from tests.integration.subscriptions.test_endings import set_status, steve_id
from tests.support.demo import DemoStore
from tests.support.discord_standin import StandInDiscord
from tests.support.invocation import Invoke
from webstore.discord.http import HttpDiscord
from webstore.discord.sync import SyncResult, on_event, sync_player
from webstore.domain.discord import RoleRule
from webstore.events import DomainEvent
from webstore.repo.audit_log import Audit
from webstore.repo.discord import DiscordLink, DiscordRepository
from webstore.sealing import seal
from webstore.services import get_services

from .conftest import ADMIN, GUILD, STEVE_DISCORD, SUPPORTER, VIP_ROLE

ACCOUNT = 1
START = datetime(2026, 6, 1, 12, tzinfo=UTC)
VIP, PET = 1, 12


def api(discord: StandInDiscord) -> HttpDiscord:
    return HttpDiscord(
        client_id=discord.client_id,
        client_secret=discord.client_secret,
        bot_token=discord.bot_token,
        base_url=discord.base_url,
        sleep=lambda _: None,
    )


def sync(discord: StandInDiscord, *, reconcile: bool = False) -> SyncResult:
    """One run for Steve: a queued retry (the event path), or a reconciliation."""
    trigger = "reconcile" if reconcile else "retry"
    return sync_player(
        get_services(), api(discord), ACCOUNT, steve_id(), START, trigger=trigger, reconcile=reconcile
    )


def set_up(discord: StandInDiscord, *, in_guild: bool = True, guilds_join: bool = True) -> DiscordRepository:
    repo = DiscordRepository(get_services().table)
    audit = Audit("owner@example.test", "discord.rule", "test", START)
    repo.save_rule(ACCOUNT, RoleRule(VIP, GUILD, frozenset({VIP_ROLE, SUPPORTER})), audit)
    repo.save_rule(ACCOUNT, RoleRule(PET, GUILD, frozenset({SUPPORTER})), audit)
    token = discord.issue_token(STEVE_DISCORD, "identify guilds.join" if guilds_join else "identify")
    link = DiscordLink(
        username_id=steve_id(),
        discord_user_id=STEVE_DISCORD,
        discord_username="steve",
        access_token_sealed=seal(get_services().secrets, token),
        scopes=["identify", "guilds.join"] if guilds_join else ["identify"],
        linked_at=START,
    )
    repo.save_link(ACCOUNT, link, None)
    if in_guild:
        discord.guilds[GUILD].members[STEVE_DISCORD] = set()
    return repo


class Deliver:
    """The Discord consumer's use case over the events published since the last call."""

    def __init__(self, discord: StandInDiscord, published: list[DomainEvent]) -> None:
        self.adapter = api(discord)
        self.published = published
        self.seen = 0

    def __call__(self, now: datetime) -> SyncResult:
        result = SyncResult()
        events, self.seen = self.published[self.seen :], len(self.published)
        for event in events:
            result.entries += on_event(get_services(), lambda _: self.adapter, event, now).entries
        return result


def test_vip_granted_once_renewal_sends_nothing_refund_removes_it_shared_role_kept(
    demo: DemoStore, invoke: Invoke, discord: StandInDiscord, published: list[DomainEvent]
) -> None:
    repo = set_up(discord)
    deliver = Deliver(discord, published)
    with time_machine.travel(START, tick=False) as traveller:
        vip = buy(invoke, demo, {"package_id": VIP})["txn_id"]
        deliver(START)
        assert discord.roles_of(GUILD, STEVE_DISCORD) == {VIP_ROLE, SUPPORTER}
        granted = discord.changes()
        assert sorted(granted) == sorted(
            [("PUT", f"/guilds/{GUILD}/members/{STEVE_DISCORD}/roles/{r}") for r in (VIP_ROLE, SUPPORTER)]
        )

        later = START + timedelta(days=40)
        traveller.move_to(later)
        run(later)  # the renewal
        assert "recurring-payment.renewed" in [e.type for e in published]
        assert deliver(later).entries == []
        assert discord.changes() == granted  # no call at all

        buy(invoke, demo, {"package_id": PET})  # a second package granting Supporter
        deliver(later)
        assert discord.changes() == granted

        set_status(invoke, demo, payments(invoke, demo)[1]["txn_id"], "refund")  # the VIP renewal
        deliver(later)
        assert discord.roles_of(GUILD, STEVE_DISCORD) == {SUPPORTER}  # Pet still grants it

        set_status(invoke, demo, payments(invoke, demo)[0]["txn_id"], "chargeback")  # the Pet
        deliver(later)
        assert discord.roles_of(GUILD, STEVE_DISCORD) == set()
    log = repo.recent(ACCOUNT)
    # The clock stands still in this test, so entries share their time and the log may list them
    # in either order; the order of the revocations is checked above through the member's roles.
    assert sorted((e.action, e.role_id, e.status) for e in log) == sorted(
        [
            ("grant", SUPPORTER, "done"),
            ("grant", VIP_ROLE, "done"),
            ("revoke", VIP_ROLE, "done"),
            ("revoke", SUPPORTER, "done"),
        ]
    )
    assert vip.startswith("tbx-")


def test_429_and_5xx_are_retried_later_and_delivered_once(
    demo: DemoStore, invoke: Invoke, discord: StandInDiscord, published: list[DomainEvent]
) -> None:
    set_up(discord)
    deliver = Deliver(discord, published)
    with time_machine.travel(START, tick=False):
        buy(invoke, demo, {"package_id": VIP})
        discord.fail_next(429, retry_after=30.0, match=f"/roles/{SUPPORTER}")
        discord.fail_next(503, match=f"/roles/{VIP_ROLE}")
        first = deliver(START)
        assert first.retry_needed and discord.roles_of(GUILD, STEVE_DISCORD) == set()
        assert {e.status for e in first.entries} == {"retry"}
        # The queue delivers the message again later: the same run, recomputed.
        again = sync(discord)
        assert not again.retry_needed and again.calls == 2
        assert discord.roles_of(GUILD, STEVE_DISCORD) == {VIP_ROLE, SUPPORTER}
        assert (
            sync_player(get_services(), api(discord), ACCOUNT, steve_id(), START, trigger="retry").calls == 0
        )
        assert len(discord.changes()) == 2


def test_a_role_above_the_bot_is_refused_and_shown_not_retried(
    demo: DemoStore, invoke: Invoke, discord: StandInDiscord, published: list[DomainEvent]
) -> None:
    repo = set_up(discord)
    repo.save_rule(ACCOUNT, RoleRule(VIP, GUILD, frozenset({ADMIN})), Audit("o", "discord.rule", "t", START))
    with time_machine.travel(START, tick=False):
        buy(invoke, demo, {"package_id": VIP})
        result = Deliver(discord, published)(START)
    assert not result.retry_needed  # not by the queue; a later change or reconciliation tries again
    assert result.entries and {(e.role_id, e.status) for e in result.entries} == {(ADMIN, "refused")}
    entry = result.entries[0]
    assert "highest role" in entry.answer and "50013" in entry.answer
    assert repo.recent(ACCOUNT)[0].status == "refused"


def test_a_player_not_in_the_guild_is_added_with_the_roles(
    demo: DemoStore, invoke: Invoke, discord: StandInDiscord, published: list[DomainEvent]
) -> None:
    set_up(discord, in_guild=False)
    with time_machine.travel(START, tick=False):
        buy(invoke, demo, {"package_id": VIP})
        result = Deliver(discord, published)(START)
    assert discord.roles_of(GUILD, STEVE_DISCORD) == {VIP_ROLE, SUPPORTER}
    assert {(e.action, e.status) for e in result.entries} == {("join", "done")}


def test_without_guilds_join_the_roles_wait_and_a_reconciliation_grants_them_after_joining(
    demo: DemoStore, invoke: Invoke, discord: StandInDiscord, published: list[DomainEvent]
) -> None:
    set_up(discord, in_guild=False, guilds_join=False)
    with time_machine.travel(START, tick=False):
        buy(invoke, demo, {"package_id": VIP})
        result = Deliver(discord, published)(START)
        assert {e.status for e in result.entries} == {"waiting"} and not result.retry_needed
        discord.guilds[GUILD].members[STEVE_DISCORD] = set()  # they join
        sync_player(
            get_services(), api(discord), ACCOUNT, steve_id(), START, trigger="reconcile", reconcile=True
        )
    assert discord.roles_of(GUILD, STEVE_DISCORD) == {VIP_ROLE, SUPPORTER}


def test_a_member_who_left_and_rejoined_gets_the_roles_back_on_reconciliation(
    demo: DemoStore, invoke: Invoke, discord: StandInDiscord, published: list[DomainEvent]
) -> None:
    set_up(discord, guilds_join=False)
    with time_machine.travel(START, tick=False):
        buy(invoke, demo, {"package_id": VIP})
        Deliver(discord, published)(START)
        del discord.guilds[GUILD].members[STEVE_DISCORD]  # leaves: Discord forgets their roles
        discord.guilds[GUILD].members[STEVE_DISCORD] = set()  # and rejoins
        # The event path believes the roles are held: nothing to send.
        assert sync(discord).calls == 0
        repaired = sync(discord, reconcile=True)
    assert repaired.calls == 2
    assert discord.roles_of(GUILD, STEVE_DISCORD) == {VIP_ROLE, SUPPORTER}


def test_a_role_removed_by_hand_is_repaired_and_one_given_by_hand_is_left(
    demo: DemoStore, invoke: Invoke, discord: StandInDiscord, published: list[DomainEvent]
) -> None:
    set_up(discord)
    with time_machine.travel(START, tick=False):
        buy(invoke, demo, {"package_id": PET})
        Deliver(discord, published)(START)
        discord.guilds[GUILD].members[STEVE_DISCORD] = {VIP_ROLE}  # Supporter removed, VIP given by hand
        sync_player(
            get_services(), api(discord), ACCOUNT, steve_id(), START, trigger="reconcile", reconcile=True
        )
    assert discord.roles_of(GUILD, STEVE_DISCORD) == {VIP_ROLE, SUPPORTER}


def test_nothing_happens_for_a_player_without_a_link_or_a_store_without_an_app(
    demo: DemoStore, invoke: Invoke, discord: StandInDiscord, published: list[DomainEvent]
) -> None:
    with time_machine.travel(START, tick=False):
        buy(invoke, demo, {"package_id": VIP})
        assert Deliver(discord, published)(START).entries == []
        assert [on_event(get_services(), lambda _: None, e, START).entries for e in published] == [[]] * len(
            published
        )
    assert discord.requests == []
