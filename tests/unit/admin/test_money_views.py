"""Stored XSS: every payments, subscriptions and players page body escapes what players and
staff typed (names, e-mails, variables, custom data, notes, reasons, commands)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from webstore.admin.payments import DONE, QUEUED, CommandState, PaymentDetail, PaymentSearch, SearchResult
from webstore.admin.players import BanPage, PlayerHistory
from webstore.admin.subscriptions import SubscriptionPage
from webstore.admin.views import payments as payment_views
from webstore.admin.views import players as player_views
from webstore.admin.views import subscriptions as subscription_views
from webstore.html import Markup
from webstore.players import Player
from webstore.recurring import RecurringLine, RecurringPayment
from webstore.repo.bans import Ban
from webstore.repo.payments import CommandResend, PaymentLine, PaymentNote, PaymentRecord
from webstore.repo.queue import QueuedCommand

EVIL = '<script>alert("x")</script>'
ATTR = '"><img src=x onerror=alert(1)>'
NOW = datetime(2026, 3, 15, 12, tzinfo=UTC)
CSRF = Markup('<input type="hidden" name="csrf" value="token">')


def assert_escaped(html: str) -> None:
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;" in html


def evil_payment() -> PaymentRecord:
    line = PaymentLine(
        package_id=10,
        category_id=1,
        name=EVIL,
        price=Decimal("2.5"),
        variables={"note": EVIL, ATTR: ATTR},
        username_id=1,
        username=EVIL,
    )
    return PaymentRecord(
        id=1,
        transaction_id="tbx-1-0a0b0c0d",
        account_id=1,
        amount=Decimal("2.5"),
        currency="USD",
        email=ATTR,
        username_id=1,
        username=EVIL,
        uuid=ATTR,
        lines=[line],
        coupons=[EVIL],
        creator_code=ATTR,
        custom={"message": EVIL, ATTR: [ATTR]},
        notes=[PaymentNote(created_at=NOW, note=EVIL)],
        resends=[CommandResend(id="a" * 32, by=EVIL, at=NOW, commands=1)],
        idempotency_key="k",
        created_at=NOW,
        updated_at=NOW,
    )


def evil_command(command_id: int) -> QueuedCommand:
    return QueuedCommand(
        id=command_id, server_id=1, command=f"say {EVIL}", username_id=1, username=ATTR, created_at=NOW
    )


def test_search_page_escapes_players_and_the_form_values() -> None:
    search = PaymentSearch(player=ATTR, transaction=None)
    html = payment_views.search_body(search, SearchResult([evil_payment()], "PAY#0000000001", notice=EVIL))
    assert_escaped(html)
    assert ATTR not in html


@pytest.mark.parametrize("can_act", [True, False])
def test_payment_page_escapes_everything_players_typed(can_act: bool) -> None:
    detail = PaymentDetail(
        evil_payment(),
        [CommandState(evil_command(1), "purchase", QUEUED), CommandState(evil_command(2), "purchase", DONE)],
        3,
        {1: EVIL},
    )
    html = payment_views.detail_body(detail, csrf=CSRF if can_act else None, resend_id="b" * 32, done=EVIL)
    assert_escaped(html)
    assert ATTR not in html
    assert ("/refund" in html) is can_act and ('name="csrf"' in html) is can_act
    assert "1 more commands are not listed" in html


def evil_recurring() -> RecurringPayment:
    return RecurringPayment(
        reference="tbx-1-0a0b0c0d",
        account_id=1,
        username_id=1,
        username=EVIL,
        lines=[
            RecurringLine(
                package_id=1, category_id=1, name=ATTR, price=Decimal(1), username_id=1, username=EVIL
            )
        ],
        amount=Decimal(1),
        currency="USD",
        period_length=1,
        period_unit="month",
        created_at=NOW,
        updated_at=NOW,
        next_payment_at=NOW,
        last_payment_id=1,
        initial_payment_id=1,
        cancel_reason=EVIL,
    )


@pytest.mark.parametrize("can_act", [True, False])
def test_subscription_pages_escape(can_act: bool) -> None:
    listed = subscription_views.list_body(SubscriptionPage([evil_recurring()], 1))
    assert_escaped(listed)
    shown = subscription_views.detail_body(evil_recurring(), csrf=CSRF if can_act else None, done=EVIL)
    assert_escaped(shown)
    assert ATTR not in listed + shown
    assert ("/cancel" in shown) is can_act


@pytest.mark.parametrize("can_act", [True, False])
def test_player_pages_escape(can_act: bool) -> None:
    player = Player(username_id=1, username=EVIL, uuid=ATTR, email=ATTR, payments=1)
    html = player_views.player_body(
        PlayerHistory(player, [evil_payment()], "PAY#0000000001"),
        cursor=None,
        csrf=CSRF if can_act else None,
        done=EVIL,
    )
    assert_escaped(html)
    assert ATTR not in html
    assert ('action="/bans"' in html) is can_act
    ban = Ban(id=1, time=NOW, ip=ATTR, reason=EVIL, ign=EVIL, uuid=ATTR)
    bans = player_views.bans_body(BanPage([ban], None), csrf=CSRF if can_act else None, done=EVIL)
    assert_escaped(bans)
    assert ATTR not in bans
    assert ("/bans/1/lift" in bans) is can_act
