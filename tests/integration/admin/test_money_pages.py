"""The payments, subscriptions and players pages as their handlers serve them (bodies,
statuses, where each form goes next), under moto."""

from __future__ import annotations

import re

import pytest

from tests.integration.admin.money_support import pay, use_clock
from tests.support.demo import DemoStore
from webstore.admin import payment_pages, player_pages, subscription_pages
from webstore.admin.flow import PanelPage
from webstore.errors import Conflict, Invalid, NotFound
from webstore.html import Markup
from webstore.services import get_services

CSRF = Markup('<input type="hidden" name="csrf" value="t">')


@pytest.fixture(autouse=True)
def clock(demo: DemoStore) -> None:
    use_clock()


def test_a_bad_search_field_shows_the_form_with_why() -> None:
    page = payment_pages.payments_page(get_services(), 1, {"from": "yesterday"})
    assert page.status == 422 and "from must be a date" in page.body and 'role="search"' in page.body


def test_search_lists_and_links_the_next_page(demo: DemoStore, monkeypatch: pytest.MonkeyPatch) -> None:
    from webstore.admin import payments

    monkeypatch.setattr(payments, "PER_PAGE", 1)
    first, second = pay("a"), pay("b")
    page = payment_pages.payments_page(get_services(), 1, {})
    assert second.transaction_id in page.body and first.transaction_id not in page.body
    link = re.search(r'id="next" href="/payments\?([^"]+)"', page.body)
    assert link and "cursor=PAY%230000000002" in link.group(1)
    older = payment_pages.payments_page(get_services(), 1, {"cursor": "PAY#0000000002"})
    assert first.transaction_id in older.body


def test_payment_actions_redirect_with_a_code_or_show_the_refusal(demo: DemoStore) -> None:
    payment = pay("vip", package_id=1, price="4.99")
    services = get_services()
    txn = payment.transaction_id

    def act(action: str, **form: str) -> str:
        return payment_pages.payment_action(services, 1, txn, action, form, by="owner", now=services.now())

    assert act("notes", note="hello") == f"/payments/{txn}?done=noted"
    assert act("resend", resend_id="a" * 32) == f"/payments/{txn}?done=resent"
    assert act("resend", resend_id="a" * 32) == f"/payments/{txn}?done=already-resent"
    assert act("refund") == f"/payments/{txn}?done=refunded"
    with pytest.raises(Conflict) as refused:
        act("chargeback")
    assert refused.value.status == 409
    shown = payment_pages.payment_page(services, 1, txn, csrf=lambda: CSRF, error=refused.value)
    assert shown.status == 409 and "cannot become chargeback" in shown.body
    with pytest.raises(NotFound):
        act("explode")
    with pytest.raises(NotFound):
        payment_pages.payment_action(services, 2, txn, "refund", {}, by="x", now=services.now())


def test_payment_page_shows_the_done_message_by_code_only(demo: DemoStore) -> None:
    payment = pay("a")
    shown = payment_pages.payment_page(
        get_services(), 1, payment.transaction_id, csrf=lambda: None, done="noted"
    )
    assert "Note added." in shown.body and "<form" not in shown.body
    other = payment_pages.payment_page(
        get_services(), 1, payment.transaction_id, csrf=lambda: CSRF, done="<b>hi</b>"
    )
    assert "hi</b>" not in other.body and 'name="resend_id"' in other.body


def test_subscription_forms(demo: DemoStore) -> None:
    reference = pay("vip", package_id=1, price="4.99").transaction_id
    services = get_services()
    listed = subscription_pages.subscriptions_page(services, 1, {})
    assert reference in listed.body
    assert subscription_pages.subscription_action(
        services, 1, reference, "cancel", {"reason": "asked"}, by="owner@example.test", now=services.now()
    ) == (f"/subscriptions/{reference}?done=cancelled")
    shown = subscription_pages.subscription_page(services, 1, reference, csrf=lambda: CSRF, done="cancelled")
    assert "undo-cancel" in shown.body and "asked" in shown.body
    assert subscription_pages.subscription_action(
        services, 1, reference, "undo-cancel", {}, by="owner@example.test", now=services.now()
    ).endswith("done=kept")
    with pytest.raises(Invalid) as too_long:
        subscription_pages.subscription_action(
            services,
            1,
            reference,
            "cancel",
            {"reason": "x" * 501},
            by="owner@example.test",
            now=services.now(),
        )
    assert too_long.value.field == "reason"


def test_players_and_bans(demo: DemoStore) -> None:
    pay("a", "Steve")
    services = get_services()
    assert player_pages.players_page(services, 1, {"player": " Steve "}) == "/players/Steve"
    lookup = player_pages.players_page(services, 1, {})
    assert isinstance(lookup, PanelPage) and 'action="/players"' in lookup.body
    shown = player_pages.player_page(services, 1, "Steve", {}, csrf=lambda: CSRF)
    assert "Ban Steve" in shown.body
    assert (
        player_pages.ban_action(
            services, 1, {"user": "Steve", "reason": "grief"}, by="owner@example.test", now=services.now()
        )
        == "/bans?done=banned"
    )
    with pytest.raises(Invalid) as refused:
        player_pages.ban_action(services, 1, {"user": ""}, by="owner@example.test", now=services.now())
    assert refused.value.field == "user"
    bans = player_pages.bans_page(services, 1, {"done": "banned"}, csrf=lambda: CSRF)
    assert "grief" in bans.body and "Banned." in bans.body
    ban_id = re.search(r'action="/bans/(\d+)/lift"', bans.body)
    assert ban_id
    assert (
        player_pages.lift_action(services, 1, ban_id.group(1), by="owner@example.test", now=services.now())
        == "/bans?done=lifted"
    )
    with pytest.raises(NotFound):
        player_pages.lift_action(services, 1, ban_id.group(1), by="owner@example.test", now=services.now())


def test_player_history_links_its_next_page(demo: DemoStore, monkeypatch: pytest.MonkeyPatch) -> None:
    from webstore.admin import players

    monkeypatch.setattr(players, "PER_PAGE", 1)
    older, newer = pay("a", "Steve"), pay("b", "Steve")
    shown = player_pages.player_page(get_services(), 1, "Steve", {}, csrf=lambda: None)
    link = re.search(r'id="next" href="/players/Steve\?cursor=([^"]+)"', shown.body)
    assert link and link.group(1) == "PAY%230000000002" and newer.transaction_id in shown.body
    page_two = player_pages.player_page(
        get_services(), 1, "Steve", {"cursor": "PAY#0000000002"}, csrf=lambda: None
    )
    assert older.transaction_id in page_two.body and newer.transaction_id not in page_two.body
