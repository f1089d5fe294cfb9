"""Payments and fulfilment through the real handlers (and the fulfilment use case itself)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from functions.operator import (
    create_payment,
    create_payment_note,
    get_due_players,
    get_offline_commands,
    get_online_commands,
    get_payment,
    get_payment_fields,
    get_payments,
    get_user,
    update_payment,
)
from tests.integration.operator.support import manual_payment, secret_headers
from tests.support.clock import Clock
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.threads import in_threads
from webstore import keys
from webstore.catalog import CommandTrigger
from webstore.db import GSI1
from webstore.domain.gateways import SANDBOX
from webstore.errors import Conflict
from webstore.payments import recording
from webstore.payments.order import Order, OrderLine
from webstore.repo.payments import GiftCardUse
from webstore.services import get_services, local_bus


def queue_items(demo: DemoStore, server_id: int = 1) -> list[dict[str, Any]]:
    items, _ = demo.table.query(keys.queue_pk(1, server_id), sk_prefix="O", consistent=True)  # OFF# and ON#
    return [i for i in items if i["entity"] == "command"]


def order(key: str, username: str = "Steve", **overrides: Any) -> Order:
    fields: dict[str, Any] = {
        "account_id": 1,
        "idempotency_key": key,
        "username": username,
        "email": "steve@example.test",
        "lines": [OrderLine(package_id=10, paid_price=Decimal("2.50"))],
        "price_paid": Decimal("2.50"),
        "currency": "USD",
        "gateway": SANDBOX.name,
        **overrides,
    }
    return Order(**fields)


def test_manual_payment_records_and_queues_everything(demo: DemoStore, invoke: Invoke, clock: Clock) -> None:
    payment = manual_payment(
        invoke,
        demo.server_secret,
        ign="Steve",
        packages=[{"id": 1}, {"id": 10}, {"id": 11, "options": {"world": "survival"}}],
        price=12.49,
        note="paid on discord",
        email="steve@example.test",
    )
    assert payment["id"] == 1
    assert payment["txn_id"].startswith("tbx-1-")
    assert payment["amount"] == "12.49"
    assert payment["date"] == "2026-03-15T12:00:00+0000"
    assert payment["status"] == "Complete"
    assert payment["gateway"] == {"id": 1, "name": "Manual"}
    assert payment["player"] == {
        "id": payment["player"]["id"],
        "name": "Steve",
        "uuid": keys.player_uuid("Steve").replace("-", ""),  # as the plugins parse it
    }
    assert payment["packages"] == [
        {"id": 1, "name": "VIP"},
        {"id": 10, "name": "Diamond Sword"},
        {"id": 11, "name": "1,000 Coins"},
    ]
    assert payment["notes"] == [{"created_at": "2026-03-15 12:00:00", "note": "paid on discord"}]

    commands = sorted(c["command"] for c in queue_items(demo))
    assert commands == [
        "eco give {username} 1000",
        "give {username} diamond_sword 1",
        "lp user {username} parent add vip",
    ]
    assert [c["command"] for c in queue_items(demo, 2)] == ["give {username} diamond_sword 1"]

    # Tier record for the subscription in the tiered category (the storefront reads it by GSI1).
    uid = payment["player"]["id"]
    tiers, _ = demo.table.query(keys.tiers_of_player(1, uid), index=GSI1)
    assert [(t["package_id"], t["GSI1SK"]) for t in tiers] == [(1, "0000000001")]
    # Community goal progress and store stats.
    goal = demo.table.get(keys.key(keys.store_pk(1), keys.goal_sk(1)))
    assert goal is not None and goal["current"] == Decimal("12.49") and goal["status"] == "active"
    stats = demo.table.get(keys.key(keys.store_pk(1), keys.STATS_ITEM))
    assert stats is not None and stats["month"] == "2026-03" and stats["month_revenue"] == Decimal("12.49")
    assert stats["top_customer"]["username"] == "Steve"
    assert stats["recent_payments"][0]["username"] == "Steve"
    # The event carries the payment subject.
    event = [e for e in local_bus().published if e.type.startswith("payment.")][-1]
    assert event.type == "payment.completed"
    assert event.subject["transaction_id"] == payment["txn_id"]
    assert event.subject["status"] == {"id": 1, "description": "Complete"}
    assert event.subject["price_paid"] == {"amount": 12.49, "currency": "USD"}

    # Upgrading to MVP replaces the tier in that category.
    manual_payment(invoke, demo.server_secret, ign="Steve", packages=[{"id": 2}], price=9.99)
    tiers, _ = demo.table.query(keys.tiers_of_player(1, uid), index=GSI1)
    assert [t["package_id"] for t in tiers] == [2]


def test_variables_are_filled_and_required(demo: DemoStore, invoke: Invoke) -> None:
    fields = invoke(
        get_payment_fields.handler, "GET", "/payments/fields/11", headers=secret_headers(demo.server_secret)
    )
    assert [(f["name"], f["type"]) for f in fields.json()] == [("world", "dropdown")]
    assert (
        invoke(
            get_payment_fields.handler,
            "GET",
            "/payments/fields/999",
            headers=secret_headers(demo.server_secret),
        ).status
        == 404
    )
    missing = invoke(
        create_payment.handler,
        "POST",
        "/payments",
        headers=secret_headers(demo.server_secret),
        body={"ign": "Steve", "packages": [{"id": 11}], "price": 5},
    )
    assert missing.status == 422 and "world" in missing.json()["error_message"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"ign": "no spaces allowed", "packages": [{"id": 10}], "price": 1}, "ign"),
        ({"ign": "Steve", "packages": [], "price": 1}, "packages"),
        ({"ign": "Steve", "packages": [{"id": 999}], "price": 1}, "packages"),
        ({"ign": "Steve", "packages": [{"id": 10}], "price": -1}, "price"),
        ({"ign": "Steve", "packages": [{"id": 10}]}, "price"),
    ],
)
def test_manual_payment_bad_input_names_the_field(
    demo: DemoStore, invoke: Invoke, body: Any, field: str
) -> None:
    response = invoke(
        create_payment.handler, "POST", "/payments", headers=secret_headers(demo.server_secret), body=body
    )
    assert response.status == 422, response.body
    assert field in response.json()["error_message"]
    assert queue_items(demo) == []


def test_payment_lists_latest_first_and_pages(demo: DemoStore, invoke: Invoke, clock: Clock) -> None:
    h = secret_headers(demo.server_secret)
    for i in range(28):
        manual_payment(invoke, demo.server_secret, ign=f"Buyer{i:02d}", packages=[{"id": 20}], price=1)
        clock.advance(1)
    latest = invoke(get_payments.handler, "GET", "/payments", headers=h).json()
    assert [p["id"] for p in latest] == list(range(28, 0, -1))
    assert [
        p["id"]
        for p in invoke(get_payments.handler, "GET", "/payments", headers=h, query={"limit": "3"}).json()
    ] == [28, 27, 26]
    assert (
        len(invoke(get_payments.handler, "GET", "/payments", headers=h, query={"limit": "500"}).json()) == 28
    )
    assert invoke(get_payments.handler, "GET", "/payments", headers=h, query={"limit": "0"}).status == 422

    first = invoke(
        get_payments.handler, "GET", "/payments", headers=h, query={"paged": "1", "page": "1"}
    ).json()
    assert {k: first[k] for k in ("total", "per_page", "current_page", "last_page", "from", "to")} == {
        "total": 28,
        "per_page": 25,
        "current_page": 1,
        "last_page": 2,
        "from": 1,
        "to": 25,
    }
    assert [p["id"] for p in first["data"]] == list(range(28, 3, -1))
    assert first["next_page_url"].endswith("/payments?paged=1&page=2") and first["prev_page_url"] is None
    second = invoke(
        get_payments.handler, "GET", "/payments", headers=h, query={"paged": "1", "page": "2"}
    ).json()
    assert [p["id"] for p in second["data"]] == [3, 2, 1]
    assert second["next_page_url"] is None and second["prev_page_url"].endswith("page=1")
    beyond = invoke(
        get_payments.handler, "GET", "/payments", headers=h, query={"paged": "1", "page": "9"}
    ).json()
    assert beyond["data"] == [] and beyond["from"] == 0 and beyond["to"] == 0


def test_get_one_payment_and_notes(demo: DemoStore, invoke: Invoke) -> None:
    h = secret_headers(demo.server_secret)
    txn = manual_payment(invoke, demo.server_secret)["txn_id"]
    assert invoke(get_payment.handler, "GET", f"/payments/{txn}", headers=h).json()["txn_id"] == txn
    forged = txn[:-1] + ("0" if txn[-1] != "0" else "1")  # right id, wrong random part
    for bad in (forged, "tbx-99-00000000", "nonsense"):
        assert invoke(get_payment.handler, "GET", f"/payments/{bad}", headers=h).status == 404
    noted = invoke(
        create_payment_note.handler, "POST", f"/payments/{txn}/note", headers=h, body={"note": "called them"}
    )
    assert noted.status == 200 and noted.json()["notes"][-1]["note"] == "called them"
    assert (
        invoke(
            create_payment_note.handler, "POST", f"/payments/{forged}/note", headers=h, body={"note": "x"}
        ).status
        == 404
    )
    assert (
        invoke(create_payment_note.handler, "POST", f"/payments/{txn}/note", headers=h, body={}).status == 422
    )


def test_refund_queues_refund_commands_once(demo: DemoStore, invoke: Invoke) -> None:
    h = secret_headers(demo.server_secret)
    payment = manual_payment(invoke, demo.server_secret, ign="Steve", packages=[{"id": 1}], price=4.99)
    txn = payment["txn_id"]
    # The plugin was handed the purchase command (it may have run): the refund undoes it. (One
    # never handed out is withdrawn instead: test_refund_withdrawal.py.)
    invoke(get_offline_commands.handler, "GET", "/queue/offline-commands", headers=h)
    before = {c["SK"] for c in queue_items(demo)}
    refunded = invoke(update_payment.handler, "PUT", f"/payments/{txn}", headers=h, body={"status": "refund"})
    assert refunded.status == 200 and refunded.json()["status"] == "Refund"
    added = [c for c in queue_items(demo) if c["SK"] not in before]
    # VIP is a subscription: the refund ends it at once, so its expiry commands follow
    # (docs/subscriptions.md).
    assert [(c["command"], c["trigger"]) for c in added] == [
        ("lp user {username} parent remove vip", "refund"),
        ("lp user {username} parent remove vip", "expiry"),
    ]
    assert [e for e in local_bus().published if e.type.startswith("payment.")][-1].type == "payment.refunded"
    # Again, or to another state: no second set of commands; refund is final.
    assert (
        invoke(update_payment.handler, "PUT", f"/payments/{txn}", headers=h, body={"status": "refund"}).status
        == 200
    )
    assert (
        invoke(
            update_payment.handler, "PUT", f"/payments/{txn}", headers=h, body={"status": "chargeback"}
        ).status
        == 409
    )
    assert (
        invoke(
            update_payment.handler, "PUT", f"/payments/{txn}", headers=h, body={"status": "complete"}
        ).status
        == 409
    )
    assert len(queue_items(demo)) == len(before) + 2  # nothing more than the refund queued
    assert (
        invoke(update_payment.handler, "PUT", f"/payments/{txn}", headers=h, body={"status": "paid"}).status
        == 422
    )


def test_chargeback_then_dispute_won_and_player_lookup(demo: DemoStore, invoke: Invoke) -> None:
    h = secret_headers(demo.server_secret)
    txn = manual_payment(invoke, demo.server_secret, ign="Steve", packages=[{"id": 1}], price=4.99)["txn_id"]
    manual_payment(invoke, demo.server_secret, ign="Steve", packages=[{"id": 20}], price=2)
    invoke(get_offline_commands.handler, "GET", "/queue/offline-commands", headers=h)  # VIP handed out
    assert (
        invoke(
            update_payment.handler, "PUT", f"/payments/{txn}", headers=h, body={"status": "chargeback"}
        ).json()["status"]
        == "Chargeback"
    )
    assert [c["trigger"] for c in queue_items(demo)].count("chargeback") == 1
    lookup = invoke(get_user.handler, "GET", "/user/Steve", headers=h).json()
    assert lookup["player"]["username"] == "Steve" and lookup["player"]["id"] == keys.player_uuid(
        "Steve"
    ).replace("-", "")
    assert lookup["chargebackRate"] == 0.5
    assert lookup["purchaseTotals"] == {"USD": 2.0}
    assert [p["status"] for p in lookup["payments"]] == [1, 3]
    assert lookup["payments"][1]["txn_id"] == txn
    by_uuid = invoke(get_user.handler, "GET", f"/user/{keys.player_uuid('Steve')}", headers=h).json()
    assert by_uuid == lookup
    assert (
        invoke(
            update_payment.handler, "PUT", f"/payments/{txn}", headers=h, body={"status": "complete"}
        ).json()["status"]
        == "Complete"
    )
    again = invoke(get_user.handler, "GET", "/user/steve", headers=h).json()
    assert again["chargebackRate"] == 0.0 and again["purchaseTotals"] == {"USD": 6.99}
    assert invoke(get_user.handler, "GET", "/user/Nobody", headers=h).status == 404


def test_reassign_payment_to_another_username(demo: DemoStore, invoke: Invoke) -> None:
    h = secret_headers(demo.server_secret)
    txn = manual_payment(invoke, demo.server_secret, ign="Steve", packages=[{"id": 20}], price=2)["txn_id"]
    moved = invoke(
        update_payment.handler, "PUT", f"/payments/{txn}", headers=h, body={"username": "Alex"}
    ).json()
    assert moved["player"]["name"] == "Alex" and moved["status"] == "Complete"
    alex = invoke(get_user.handler, "GET", "/user/Alex", headers=h).json()
    assert [p["txn_id"] for p in alex["payments"]] == [txn] and alex["purchaseTotals"] == {"USD": 2.0}
    steve = invoke(get_user.handler, "GET", "/user/Steve", headers=h).json()
    assert steve["payments"] == [] and steve["purchaseTotals"] == {"USD": 0.0}


def test_fulfilment_rerun_doubles_nothing(demo: DemoStore, invoke: Invoke) -> None:
    services = get_services()
    first = recording.fulfil(services, order("checkout-1"))
    again = recording.fulfil(services, order("checkout-1"))
    assert again.id == first.id and again.transaction_id == first.transaction_id
    assert len(queue_items(demo)) == 1 and len(queue_items(demo, 2)) == 1
    goal = demo.table.get(keys.key(keys.store_pk(1), keys.goal_sk(1)))
    assert goal is not None and goal["current"] == Decimal("2.50")
    # Through the handler: the Idempotency-Key header makes a retried POST the same payment.
    h = {**secret_headers(demo.server_secret), "Idempotency-Key": "retry-me"}
    body = {"ign": "Alex", "packages": [{"id": 20}], "price": 2}
    one = invoke(create_payment.handler, "POST", "/payments", headers=h, body=body).json()
    two = invoke(create_payment.handler, "POST", "/payments", headers=h, body=body).json()
    assert one == two
    assert len(invoke(get_payments.handler, "GET", "/payments", headers=h).json()) == 2


def test_fulfilment_resumes_after_a_crash_between_command_chunks(
    demo: DemoStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = get_services()
    big = order(
        "big-order",
        lines=[OrderLine(package_id=20, quantity=80, paid_price=Decimal("159.20"))],
        price_paid=Decimal("159.20"),
    )
    real = recording.run_pending_chunks

    def crash_before_the_remaining_chunks(services_: Any, payment: Any, trigger: str) -> None:
        monkeypatch.setattr(recording, "run_pending_chunks", real)  # only the first time
        raise RuntimeError("instance died after the payment's transaction")

    monkeypatch.setattr(recording, "run_pending_chunks", crash_before_the_remaining_chunks)
    with pytest.raises(RuntimeError):
        recording.fulfil(services, big)
    partial = len(queue_items(demo))
    assert 0 < partial < 80
    payment = recording.fulfil(services, big)  # the payment source retries
    assert len(plans := payment.plans[CommandTrigger.PURCHASE.value]) >= 2
    assert payment.chunks_done["purchase"] == len(plans)
    commands = queue_items(demo)
    assert len(commands) == 80 and len({c["id"] for c in commands}) == 80
    due = demo.table.get(keys.key(keys.queue_pk(1, 1), keys.due_sk(payment.username_id)), consistent=True)
    assert due is not None and int(due["pending"]) == 80
    assert recording.fulfil(services, big).id == payment.id
    assert len(queue_items(demo)) == 80


def test_coupon_limit_holds_under_concurrent_payments(demo: DemoStore) -> None:
    services = get_services()
    limit = 3  # SWORD1 in the demo store: redeem limit set to L
    demo.table.update(
        keys.key(keys.account_pk(1), keys.coupon_code_sk("SWORD1")),
        "SET expire_limit = :l",
        values={":l": limit},
    )
    outcomes: list[str] = []

    def pay(index: int) -> None:
        try:
            recording.fulfil(services, order(f"coupon-{index}", username=f"Racer{index}", coupons=["SWORD1"]))
            outcomes.append("paid")
        except Conflict as error:
            assert "redemption limit" in error.detail
            outcomes.append("refused")

    in_threads(pay, [(i,) for i in range(limit + 5)])
    assert outcomes.count("paid") == limit and outcomes.count("refused") == 5
    code = demo.table.get(keys.key(keys.account_pk(1), keys.coupon_code_sk("SWORD1")), consistent=True)
    assert code is not None and int(code["redemptions"]) == limit
    # Payment ids stayed dense despite the contention.
    sequence = demo.table.get(keys.key(keys.account_pk(1), keys.SEQUENCES_ITEM), consistent=True)
    assert sequence is not None and int(sequence["payment"]) == limit
    assert len(queue_items(demo)) == limit


def test_gift_card_and_user_limit_are_enforced(demo: DemoStore, invoke: Invoke) -> None:
    services = get_services()
    card = [GiftCardUse(card_number="GIFT-0000-0000-0001", amount=Decimal("6.00"))]
    recording.fulfil(services, order("gift-1", giftcards=card))
    with pytest.raises(Conflict, match="Gift card"):
        recording.fulfil(services, order("gift-2", giftcards=card))
    balance = demo.table.get(keys.key(keys.account_pk(1), keys.giftcard_sk("GIFT-0000-0000-0001")))
    assert balance is not None and balance["balance"] == Decimal("4.00")

    manual_payment(invoke, demo.server_secret, ign="Pat", packages=[{"id": 12}], price=3)
    again = invoke(
        create_payment.handler,
        "POST",
        "/payments",
        headers=secret_headers(demo.server_secret),
        body={"ign": "Pat", "packages": [{"id": 12}], "price": 3},
    )
    assert again.status == 409 and "limit" in again.json()["error_message"]


def test_gift_goes_to_the_target_player(demo: DemoStore, invoke: Invoke) -> None:
    services = get_services()
    recording.fulfil(
        services,
        order(
            "gift-line", lines=[OrderLine(package_id=10, paid_price=Decimal("2.50"), gift_username="Friend")]
        ),
    )
    [command] = queue_items(demo)
    assert command["username"] == "Friend"
    body = invoke(get_due_players.handler, "GET", "/queue", headers=secret_headers(demo.server_secret)).json()
    assert [p["name"] for p in body["players"]] == ["Friend"]
    assert (
        invoke(
            get_offline_commands.handler,
            "GET",
            "/queue/offline-commands",
            headers=secret_headers(demo.server_secret),
        ).json()["commands"]
        == []
    )
    pid = body["players"][0]["id"]
    assert (
        len(
            invoke(
                get_online_commands.handler,
                "GET",
                f"/queue/online-commands/{pid}",
                headers=secret_headers(demo.server_secret),
            ).json()["commands"]
        )
        == 1
    )


def test_recent_payments_stay_capped_in_the_stats_and_the_sidebar(demo: DemoStore, invoke: Invoke) -> None:
    """Bug (issue 9.4): the list the sidebar shows is kept by fulfilment at RECENT_PAYMENTS_KEPT."""
    from tests.integration.storefront.test_sidebar import by_type, sidebar
    from webstore.catalog import SidebarModule
    from webstore.players import RECENT_PAYMENTS_KEPT
    from webstore.repo.store import StoreRepository

    services = get_services()
    for n in range(RECENT_PAYMENTS_KEPT + 3):
        recording.fulfil(services, order(f"recent-{n}", username=f"Player{n}"))
    stats = demo.table.get(keys.key(keys.store_pk(1), keys.STATS_ITEM))
    assert stats is not None
    assert [p["username"] for p in stats["recent_payments"]] == [
        f"Player{n}" for n in reversed(range(3, RECENT_PAYMENTS_KEPT + 3))
    ]
    repo = StoreRepository(demo.table)
    store = repo.store(1)
    store.sidebar = [SidebarModule(type="recent_payments", title="Recent", order=1, settings={"limit": 50})]
    demo.table.put(repo.store_item(store))
    shown = by_type(sidebar(invoke, demo))["recent_payments"]["payments"]
    assert [p["username"] for p in shown] == [p["username"] for p in stats["recent_payments"]]


def test_a_change_made_from_a_stale_read_is_refused_and_writes_nothing(demo: DemoStore) -> None:
    """PaymentRepository.add_change: conditional on the status and owner that were read."""
    from webstore.db import Transaction
    from webstore.domain.payment_status import PaymentStatus
    from webstore.payments.changes import change_payment
    from webstore.repo.payments import PaymentRepository

    services = get_services()
    stale = recording.fulfil(services, order("stale-1"))
    change_payment(services, 1, stale.transaction_id, "refund", None)  # meanwhile, elsewhere
    chargeback = stale.model_copy(update={"status": PaymentStatus.CHARGEBACK})
    tx = Transaction(services.table)
    PaymentRepository.add_change(tx, stale, chargeback, None, fails=Conflict("changed meanwhile"))
    with pytest.raises(Conflict, match="changed meanwhile"):
        tx.commit()
    stored = PaymentRepository(services.table).get(1, stale.id, consistent=True)
    assert stored is not None and stored.status is PaymentStatus.REFUND


def test_concurrent_payments_take_distinct_dense_ids_in_their_transactions(demo: DemoStore) -> None:
    """Each payment takes its id and its commands' ids in its own transaction: racing payments
    lose to each other (contention), read again, and end with distinct ids and no gaps."""
    services = get_services()
    seq_key = keys.key(keys.account_pk(1), keys.SEQUENCES_ITEM)
    before = demo.table.get(seq_key, consistent=True) or {}
    payments: list[int] = []
    command_ids: list[int] = []

    def pay(index: int) -> None:
        payment = recording.fulfil(services, order(f"race-{index}", username=f"Racer{index}"))
        payments.append(payment.id)
        command_ids.extend(c.id for chunk in payment.plans["purchase"] for c in chunk)

    in_threads(pay, [(i,) for i in range(6)])
    first_payment = int(before.get("payment", 0)) + 1
    assert sorted(payments) == list(range(first_payment, first_payment + 6))
    first_command = int(before.get("command", 0)) + 1
    assert command_ids and sorted(command_ids) == list(range(first_command, first_command + len(command_ids)))
    sequence = demo.table.get(seq_key, consistent=True)
    assert sequence is not None and int(sequence["command"]) == max(command_ids)
