"""The panel's subscriptions and players under moto: lists and their pages, cancel at period
end (and undo), purchase history, bans created and lifted, store isolation."""

from __future__ import annotations

import pytest

from tests.integration.admin.money_support import pay, use_clock
from tests.support.demo import DemoStore
from webstore.admin import players as panel_players
from webstore.admin import subscriptions as panel_subscriptions
from webstore.catalog_import import ImportResult
from webstore.errors import Invalid, NotFound
from webstore.operator.bans import list_bans
from webstore.repo.audit_log import AuditLog
from webstore.repo.payments import PaymentRecord
from webstore.repo.players import PlayerRepository
from webstore.services import get_services


@pytest.fixture(autouse=True)
def clock(demo: DemoStore) -> None:
    use_clock()


@pytest.fixture
def subscribed(demo: DemoStore) -> list[PaymentRecord]:
    """Five players each start a VIP subscription (package 1), in order."""
    return [pay(f"vip-{name}", name, 1, "4.99") for name in ("Ann", "Bob", "Cid", "Dan", "Eve")]


def test_subscriptions_list_newest_first_in_pages(
    subscribed: list[PaymentRecord], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(panel_subscriptions, "PER_PAGE", 2)
    services = get_services()
    seen, below = [], None
    while True:
        page = panel_subscriptions.subscriptions_page(services, 1, below)
        seen.append([s.username for s in page.subscriptions])
        if page.next_below is None:
            break
        below = str(page.next_below)
    assert seen == [["Eve", "Dan"], ["Cid", "Bob"], ["Ann"]]
    with pytest.raises(Invalid) as bad:
        panel_subscriptions.subscriptions_page(services, 1, "x")
    assert bad.value.field == "below"


def test_cancel_at_period_end_and_undo(subscribed: list[PaymentRecord]) -> None:
    services = get_services()
    reference = subscribed[0].transaction_id
    shown = panel_subscriptions.subscription(services, 1, reference)
    assert shown.ongoing and shown.cancel_requested_at is None
    cancelled = panel_subscriptions.cancel_at_period_end(
        services, 1, reference, "  asked   by mail ", "owner@example.test", get_services().now()
    )
    assert cancelled.cancel_requested_at is not None and cancelled.cancel_reason == "asked by mail"
    assert cancelled.ongoing  # it runs to the end of the paid period
    again = panel_subscriptions.cancel_at_period_end(
        services, 1, reference, "", "owner@example.test", get_services().now()
    )
    assert again.cancel_reason == "asked by mail"  # idempotent
    undone = panel_subscriptions.undo_cancel(
        services, 1, reference, "owner@example.test", get_services().now()
    )
    assert undone.cancel_requested_at is None
    default = panel_subscriptions.cancel_at_period_end(
        services, 1, reference, "", "owner@example.test", get_services().now()
    )
    assert default.cancel_reason == "Cancelled by the store"


def test_another_stores_subscription_is_not_found(
    subscribed: list[PaymentRecord], other_store: ImportResult
) -> None:
    services = get_services()
    reference = subscribed[0].transaction_id
    with pytest.raises(NotFound):
        panel_subscriptions.subscription(services, 2, reference)
    with pytest.raises(NotFound):
        panel_subscriptions.cancel_at_period_end(
            services, 2, reference, "", "owner@example.test", get_services().now()
        )
    assert panel_subscriptions.subscriptions_page(services, 2).subscriptions == []
    assert panel_subscriptions.subscription(services, 1, reference).cancel_requested_at is None
    with pytest.raises(NotFound):
        panel_subscriptions.subscription(services, 1, "not-a-reference")


def test_player_history_pages_by_name_or_uuid(demo: DemoStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(panel_players, "PER_PAGE", 3)
    made = [pay(f"p{n}", "Steve" if n % 2 else "Alex") for n in range(9)]
    steve = [p.id for p in reversed(made) if p.username == "Steve"]
    services = get_services()
    first = panel_players.player_history(services, 1, "steve")
    assert first.player.username == "Steve" and first.player.payments == 4
    assert [p.id for p in first.payments] == steve[:3] and first.next_cursor
    second = panel_players.player_history(services, 1, made[1].uuid or "", first.next_cursor)
    assert [p.id for p in second.payments] == steve[3:] and second.next_cursor is None
    with pytest.raises(NotFound):
        panel_players.player_history(services, 1, "Nobody")
    with pytest.raises(Invalid):
        panel_players.player_history(services, 1, "Steve", "PAY#1")


def test_ban_and_lift(demo: DemoStore) -> None:
    pay("p", "Steve")
    services = get_services()
    ban = panel_players.ban(
        services,
        1,
        {"user": "Steve", "reason": "chargebacks", "ip": "203.0.113.9"},
        "owner@example.test",
        get_services().now(),
    )
    players = PlayerRepository(demo.table)
    steve_id = players.id_by_name(1, "Steve")
    assert steve_id is not None
    assert (players.get(1, steve_id) or pytest.fail()).bans == 1
    page = panel_players.bans_page(services, 1)
    assert [b.id for b in page.bans] == [ban.id] and page.bans[0].reason == "chargebacks"
    lifted = panel_players.lift(services, 1, str(ban.id), "owner@example.test", get_services().now())
    assert lifted.ign == "Steve"
    assert panel_players.bans_page(services, 1).bans == [] and list_bans(services, 1) == []
    assert (players.get(1, steve_id) or pytest.fail()).bans == 0
    with pytest.raises(NotFound):  # lifted once
        panel_players.lift(services, 1, str(ban.id), "owner@example.test", get_services().now())
    audited = [(e.action, e.summary) for e in AuditLog(demo.table).page(1).entries]
    assert sorted(a for a in audited if a[0].startswith("player.")) == [
        ("player.ban", f"ban {ban.id}: Steve"),
        ("player.unban", f"ban {ban.id}: Steve"),
    ]  # the lift refused as 404 wrote none


def test_ban_form_is_checked_like_the_operator_body(demo: DemoStore) -> None:
    services = get_services()
    for fields, field in (
        ({"user": ""}, "user"),
        ({"user": "x" * 65}, "user"),
        ({"user": "Steve", "reason": "r" * 1001}, "reason"),
        ({"user": "Steve", "ip": "not an ip"}, "ip"),
    ):
        with pytest.raises(Invalid) as raised:
            panel_players.ban(services, 1, fields, "owner@example.test", get_services().now())
        assert raised.value.field == field


def test_bans_page_in_pages(demo: DemoStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(panel_players, "BANS_PER_PAGE", 2)
    services = get_services()
    made = [
        panel_players.ban(services, 1, {"user": f"Griefer{n}"}, "owner@example.test", get_services().now()).id
        for n in range(5)
    ]
    first = panel_players.bans_page(services, 1)
    assert [b.id for b in first.bans] == made[::-1][:2]
    second = panel_players.bans_page(services, 1, str(first.next_below))
    third = panel_players.bans_page(services, 1, str(second.next_below))
    assert [b.id for b in second.bans + third.bans] == made[::-1][2:] and third.next_below is None


def test_another_stores_bans_are_out_of_reach(demo: DemoStore, other_store: ImportResult) -> None:
    services = get_services()
    ban = panel_players.ban(services, 1, {"user": "Steve"}, "owner@example.test", get_services().now())
    with pytest.raises(NotFound):
        panel_players.lift(services, 2, str(ban.id), "owner@example.test", get_services().now())
    assert panel_players.bans_page(services, 2).bans == []
    assert [b.id for b in panel_players.bans_page(services, 1).bans] == [ban.id]
    with pytest.raises(NotFound):
        panel_players.player_history(services, 2, "Steve")


def test_lifting_what_is_no_ban_is_404(demo: DemoStore) -> None:
    for ban_id in ("0", "x", "99"):
        with pytest.raises(NotFound):
            panel_players.lift(get_services(), 1, ban_id, "owner@example.test", get_services().now())
