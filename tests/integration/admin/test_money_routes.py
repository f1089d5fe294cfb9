"""The payments, subscriptions and players pages through their real handlers under moto: the
session, roles (hidden forms and 403), CSRF, Post/Redirect/Get, and store isolation."""

from __future__ import annotations

import re
from typing import Any

import pytest

from functions.admin import (
    add_payment_note,
    ban_player,
    cancel_subscription,
    get_payment_page,
    keep_subscription,
    lift_ban,
    list_bans,
    list_subscriptions,
    lookup_player,
    mark_payment_chargeback,
    refund_payment,
    resend_payment_commands,
    search_payments,
    show_player,
    show_subscription,
)
from tests.integration.admin.money_support import pay, use_clock
from tests.support.demo import DemoStore
from tests.support.panel import PanelClient, signed_in
from webstore import keys
from webstore.admin.roles import Role
from webstore.catalog_import import ImportResult
from webstore.repo.bans import BanRepository
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.repo.queue import QueueRepository
from webstore.repo.recurring_payments import RecurringPaymentRepository


@pytest.fixture(autouse=True)
def clock(demo: DemoStore) -> None:
    use_clock()


@pytest.fixture
def vip(demo: DemoStore) -> PaymentRecord:
    """A VIP subscription (package 1: refund and chargeback commands) bought by Steve."""
    return pay("vip", "Steve", 1, "4.99")


def queued(demo: DemoStore) -> list[dict[str, Any]]:
    found = []
    for server_id in (1, 2):
        items, _ = demo.table.query(keys.queue_pk(1, server_id), sk_prefix="O", consistent=True)
        found += [i for i in items if i["entity"] == "command"]
    return found


def location(response: Any) -> str:
    assert response.status == 303, response.body
    return str(response.headers["location"])


def test_search_and_payment_pages(vip: PaymentRecord) -> None:
    owner = signed_in(Role.OWNER)
    listed = owner.get(search_payments.handler, "/payments")
    assert listed.status == 200 and vip.transaction_id in listed.body
    by_player = owner.get(search_payments.handler, "/payments", {"player": "steve", "status": "complete"})
    assert vip.transaction_id in by_player.body
    bad = owner.get(search_payments.handler, "/payments", {"from": "soon"})
    assert bad.status == 422 and "from must be a date" in bad.body
    shown = owner.get(get_payment_page.handler, f"/payments/{vip.transaction_id}")
    assert shown.status == 200 and "queued (waiting for the server)" in shown.body
    assert f'action="/payments/{vip.transaction_id}/refund"' in shown.body


def test_refund_queues_the_refund_commands_and_comes_back(demo: DemoStore, vip: PaymentRecord) -> None:
    owner = signed_in(Role.OWNER)
    txn = vip.transaction_id
    QueueRepository(demo.table).fetch(1, 1, keys.OFFLINE_PREFIX, 10, 0)  # a plugin was handed "add vip"
    # Not one click: the first post answers what the refund will do, and changes nothing.
    asked = owner.post(refund_payment.handler, f"/payments/{txn}/refund", {})
    assert asked.status == 200 and "Refund this payment?" in asked.body
    assert "lp user {username} parent remove vip" in asked.body and 'name="confirm" value="yes"' in asked.body
    assert "fetched by a server and not yet confirmed as run" in asked.body
    assert 'name="keep"' not in asked.body  # nothing to withdraw
    assert not [c for c in queued(demo) if c["trigger"] == "refund"]
    assert location(owner.post(refund_payment.handler, f"/payments/{txn}/refund", {"confirm": "yes"})) == (
        f"/payments/{txn}?done=refunded"
    )
    assert [c["command"] for c in queued(demo) if c["trigger"] == "refund"] == [
        "lp user {username} parent remove vip"
    ]
    after = owner.get(get_payment_page.handler, f"/payments/{txn}", {"done": "refunded"})
    assert "Refunded. Never-fetched commands withdrawn, refund commands queued." in after.body
    refused = owner.post(mark_payment_chargeback.handler, f"/payments/{txn}/chargeback", {"confirm": "yes"})
    assert refused.status == 409 and "cannot become chargeback" in refused.body


def test_refunding_a_payment_never_delivered_withdraws_its_commands(
    demo: DemoStore, vip: PaymentRecord
) -> None:
    owner = signed_in(Role.OWNER)
    txn = vip.transaction_id
    asked = owner.post(refund_payment.handler, f"/payments/{txn}/refund", {})
    assert "1 purchase command(s) of this payment were never fetched" in asked.body
    assert (
        "nothing of this payment reached a server" in asked.body and 'name="keep" value="yes"' in asked.body
    )
    assert location(owner.post(refund_payment.handler, f"/payments/{txn}/refund", {"confirm": "yes"})) == (
        f"/payments/{txn}?done=refunded"
    )
    assert queued(demo) == []  # neither "add vip" nor "remove vip"


def test_resend_is_once_per_form_and_a_note_is_escaped(demo: DemoStore, vip: PaymentRecord) -> None:
    support = signed_in(Role.SUPPORT)  # support may act on payments (docs/panel.md, Roles)
    txn = vip.transaction_id
    page = support.get(get_payment_page.handler, f"/payments/{txn}").body
    resend_id = re.search(r'name="resend_id" value="([0-9a-f]{32})"', page)
    assert resend_id
    before = len(queued(demo))
    form = {"resend_id": resend_id.group(1)}
    assert location(support.post(resend_payment_commands.handler, f"/payments/{txn}/resend", form)).endswith(
        "done=resent"
    )
    assert location(support.post(resend_payment_commands.handler, f"/payments/{txn}/resend", form)).endswith(
        "done=already-resent"
    )
    assert len(queued(demo)) == before + 1
    note = '<script>alert("x")</script>'
    assert location(
        support.post(add_payment_note.handler, f"/payments/{txn}/notes", {"note": note})
    ).endswith("done=noted")
    shown = support.get(get_payment_page.handler, f"/payments/{txn}").body
    assert "<script>alert" not in shown and "&lt;script&gt;alert" in shown


def test_readonly_sees_without_forms_and_is_refused(demo: DemoStore, vip: PaymentRecord) -> None:
    reader = signed_in(Role.READONLY)
    txn = vip.transaction_id
    shown = reader.get(get_payment_page.handler, f"/payments/{txn}")
    assert shown.status == 200 and "/refund" not in shown.body and "/resend" not in shown.body
    for handler, path, fields in (
        (refund_payment.handler, f"/payments/{txn}/refund", {}),
        (mark_payment_chargeback.handler, f"/payments/{txn}/chargeback", {}),
        (add_payment_note.handler, f"/payments/{txn}/notes", {"note": "x"}),
        (resend_payment_commands.handler, f"/payments/{txn}/resend", {"resend_id": "a" * 32}),
        (cancel_subscription.handler, f"/subscriptions/{txn}/cancel", {}),
        (ban_player.handler, "/bans", {"user": "Steve"}),
    ):
        assert reader.post(handler, path, fields).status == 403, path
    stored = PaymentRepository(demo.table).by_transaction(1, txn)
    assert stored.status == "complete" and stored.notes == [] and stored.resends == []
    assert BanRepository(demo.table).latest(1, 10) == []
    subscription = reader.get(show_subscription.handler, f"/subscriptions/{txn}")
    assert subscription.status == 200 and "/cancel" not in subscription.body
    player = reader.get(show_player.handler, "/players/Steve")
    assert player.status == 200 and 'action="/bans"' not in player.body


def test_a_post_without_the_csrf_token_is_refused(demo: DemoStore, vip: PaymentRecord) -> None:
    owner = signed_in(Role.OWNER)
    refused = owner.post(refund_payment.handler, f"/payments/{vip.transaction_id}/refund", {}, csrf="")
    assert refused.status == 403
    assert PaymentRepository(demo.table).by_transaction(1, vip.transaction_id).status == "complete"


def test_subscription_cancel_and_keep(demo: DemoStore, vip: PaymentRecord) -> None:
    owner = signed_in(Role.OWNER)
    ref = vip.transaction_id
    assert ref in owner.get(list_subscriptions.handler, "/subscriptions").body
    assert location(
        owner.post(cancel_subscription.handler, f"/subscriptions/{ref}/cancel", {"reason": "asked"})
    ).endswith("done=cancelled")
    recurring = RecurringPaymentRepository(demo.table).get(1, ref)
    assert recurring is not None and recurring.cancel_reason == "asked"
    assert location(owner.post(keep_subscription.handler, f"/subscriptions/{ref}/undo-cancel", {})).endswith(
        "done=kept"
    )


def test_players_and_bans(demo: DemoStore, vip: PaymentRecord) -> None:
    support = signed_in(Role.SUPPORT)
    assert location(support.get(lookup_player.handler, "/players", {"player": "Steve"})) == "/players/Steve"
    shown = support.get(show_player.handler, "/players/Steve")
    assert shown.status == 200 and vip.transaction_id in shown.body
    assert location(
        support.post(ban_player.handler, "/bans", {"user": "Steve", "reason": "<b>grief</b>"})
    ) == ("/bans?done=banned")
    bans = support.get(list_bans.handler, "/bans")
    assert "&lt;b&gt;grief" in bans.body and "<b>grief" not in bans.body
    [ban] = BanRepository(demo.table).latest(1, 10)
    assert location(support.post(lift_ban.handler, f"/bans/{ban.id}/lift", {})) == "/bans?done=lifted"
    assert support.post(lift_ban.handler, f"/bans/{ban.id}/lift", {}).status == 404


def test_another_stores_owner_sees_and_changes_nothing(
    demo: DemoStore, other_store: ImportResult, vip: PaymentRecord
) -> None:
    other = signed_in(Role.OWNER, account_id=2)
    txn = vip.transaction_id
    assert other.get(get_payment_page.handler, f"/payments/{txn}").status == 404
    assert other.post(refund_payment.handler, f"/payments/{txn}/refund", {}).status == 404
    assert other.post(add_payment_note.handler, f"/payments/{txn}/notes", {"note": "mine"}).status == 404
    assert other.get(show_subscription.handler, f"/subscriptions/{txn}").status == 404
    assert other.post(cancel_subscription.handler, f"/subscriptions/{txn}/cancel", {}).status == 404
    assert other.get(show_player.handler, "/players/Steve").status == 404
    assert txn not in other.get(search_payments.handler, "/payments").body
    assert other.get(search_payments.handler, "/payments", {"transaction": txn}).status == 200
    stored = PaymentRepository(demo.table).by_transaction(1, txn)
    assert stored.status == "complete" and stored.notes == []


def test_without_a_session_pages_go_to_sign_in(vip: PaymentRecord) -> None:
    anonymous = PanelClient()
    response = anonymous.get(get_payment_page.handler, f"/payments/{vip.transaction_id}")
    assert response.status == 303 and response.headers["location"].startswith("/login")


def test_what_players_typed_is_escaped_on_every_money_page(demo: DemoStore) -> None:
    from decimal import Decimal

    from webstore.payments import recording
    from webstore.payments.order import Order, OrderLine
    from webstore.services import get_services

    evil = '<script>alert("x")</script>'
    payment = recording.fulfil(
        get_services(),
        Order(
            account_id=1,
            idempotency_key="xss",
            username="Steve",
            email="steve@example.test",
            lines=[OrderLine(package_id=13, paid_price=Decimal(5), variables={"note": evil})],
            price_paid=Decimal(5),
            currency="USD",
            custom={"message": evil, evil: [evil]},
        ),
    )
    owner = signed_in(Role.OWNER)
    owner.post(add_payment_note.handler, f"/payments/{payment.transaction_id}/notes", {"note": evil})
    owner.post(ban_player.handler, "/bans", {"user": "Steve", "reason": evil})
    pages = [
        owner.get(get_payment_page.handler, f"/payments/{payment.transaction_id}"),
        owner.get(search_payments.handler, "/payments", {"player": "Steve"}),
        owner.get(show_player.handler, "/players/Steve"),
        owner.get(list_bans.handler, "/bans"),
    ]
    for page in pages:
        assert page.status == 200, page.body
        assert "<script>alert" not in page.body
    assert pages[0].body.count("&lt;script&gt;alert") >= 4  # variable, command, custom data, note


def test_a_chargeback_asks_first_and_may_keep_the_purchase_commands_still_waiting(
    demo: DemoStore, vip: PaymentRecord
) -> None:
    owner = signed_in(Role.OWNER)
    txn = vip.transaction_id
    asked = owner.post(mark_payment_chargeback.handler, f"/payments/{txn}/chargeback", {})
    assert asked.status == 200 and "Mark this payment as a chargeback?" in asked.body
    assert "purchase command(s) of this payment were never fetched" in asked.body
    assert PaymentRepository(demo.table).by_transaction(1, txn).status == "complete"
    done = owner.post(
        mark_payment_chargeback.handler, f"/payments/{txn}/chargeback", {"confirm": "yes", "keep": "yes"}
    )
    assert location(done) == f"/payments/{txn}?done=chargeback"
    assert [c["trigger"] for c in queued(demo)] == ["purchase", "chargeback", "expiry"]
