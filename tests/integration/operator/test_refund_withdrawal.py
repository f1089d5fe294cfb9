"""A refund or chargeback withdraws the payment's grants no plugin was handed yet, and queues
its own commands only for what may have been delivered (webstore.payments.changes): through the
operator interface's fetch (GET /queue/...-commands marks what it hands out) and PUT /payments,
including a plugin polling at the same moment."""

from __future__ import annotations

from typing import Any

import pytest

from functions.operator import delete_commands, get_offline_commands, get_online_commands, update_payment
from tests.integration.operator.support import manual_payment, secret_headers
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore import keys
from webstore.payments import changes
from webstore.repo.queue import QueueRepository
from webstore.services import get_services

GIVE_VIP = "lp user {username} parent add vip"
REMOVE_VIP = "lp user {username} parent remove vip"
SWORD = "give {username} diamond_sword 1"


def queued(demo: DemoStore, server_id: int = 1) -> list[tuple[str, str]]:
    """(command, trigger) of every command waiting on the server."""
    items, _ = demo.table.query(keys.queue_pk(1, server_id), sk_prefix="O", consistent=True)
    return [(i["command"], i["trigger"]) for i in items if i["entity"] == "command"]


def offline(invoke: Invoke, demo: DemoStore) -> list[dict[str, Any]]:
    response = invoke(
        get_offline_commands.handler,
        "GET",
        "/queue/offline-commands",
        headers=secret_headers(demo.server_secret),
    )
    assert response.status == 200
    return list(response.json()["commands"])


def online(invoke: Invoke, demo: DemoStore, player_id: int) -> list[dict[str, Any]]:
    response = invoke(
        get_online_commands.handler,
        "GET",
        f"/queue/online-commands/{player_id}",
        headers=secret_headers(demo.server_secret),
    )
    assert response.status == 200
    return list(response.json()["commands"])


def refund(invoke: Invoke, demo: DemoStore, txn: str, status: str = "refund") -> None:
    response = invoke(
        update_payment.handler,
        "PUT",
        f"/payments/{txn}",
        headers=secret_headers(demo.server_secret),
        body={"status": status},
    )
    assert response.status == 200, response.body


def test_refund_of_an_undelivered_payment_withdraws_it_and_queues_no_removal(
    demo: DemoStore, invoke: Invoke
) -> None:
    txn = manual_payment(invoke, demo.server_secret, packages=[{"id": 1}], price=4.99)["txn_id"]
    assert queued(demo) == [(GIVE_VIP, "purchase")]
    refund(invoke, demo, txn)
    # No "add vip" for the plugin to run, and no "remove vip" (nor the subscription's expiry).
    assert queued(demo) == []
    assert offline(invoke, demo) == []
    state, _ = QueueRepository(demo.table).state_and_server(1, 1)
    assert state.offline_pending == 0  # the queue's count went down with the withdrawal


def test_a_chargeback_of_a_fetched_payment_queues_the_removal(demo: DemoStore, invoke: Invoke) -> None:
    """Fetched but not yet acknowledged: it may have run, so it stays and the removal follows."""
    txn = manual_payment(invoke, demo.server_secret, packages=[{"id": 1}], price=4.99)["txn_id"]
    assert [c["command"] for c in offline(invoke, demo)] == [GIVE_VIP]
    refund(invoke, demo, txn, "chargeback")
    assert queued(demo) == [(GIVE_VIP, "purchase"), (REMOVE_VIP, "chargeback"), (REMOVE_VIP, "expiry")]


def test_a_refund_after_the_plugin_acknowledged_queues_the_removal(demo: DemoStore, invoke: Invoke) -> None:
    txn = manual_payment(invoke, demo.server_secret, packages=[{"id": 1}], price=4.99)["txn_id"]
    ids = [c["id"] for c in offline(invoke, demo)]
    deleted = invoke(
        delete_commands.handler,
        "DELETE",
        "/queue",
        headers=secret_headers(demo.server_secret),
        body={"ids": ids},
    )
    assert deleted.status == 204
    refund(invoke, demo, txn)
    assert queued(demo) == [(REMOVE_VIP, "refund"), (REMOVE_VIP, "expiry")]


def test_only_the_delivered_package_is_undone(demo: DemoStore, invoke: Invoke) -> None:
    """VIP (offline) never fetched, the sword (online) fetched: VIP's grant is withdrawn with no
    removal, the sword's stays with the plugin."""
    payment = manual_payment(invoke, demo.server_secret, packages=[{"id": 1}, {"id": 10}], price=7.49)
    player_id = payment["player"]["id"]
    assert [c["command"] for c in online(invoke, demo, player_id)] == [SWORD]
    refund(invoke, demo, payment["txn_id"])
    assert queued(demo) == [(SWORD, "purchase")]
    assert offline(invoke, demo) == []
    assert [c["command"] for c in online(invoke, demo, player_id)] == [SWORD]  # fetched again, still there


def test_the_panel_may_keep_the_undelivered_commands(demo: DemoStore, invoke: Invoke) -> None:
    """`withdraw=False` (the confirmation's "keep them"): the grant stays, the removal follows."""
    txn = manual_payment(invoke, demo.server_secret, packages=[{"id": 1}], price=4.99)["txn_id"]
    changes.change_payment(get_services(), 1, txn, "refund", None, withdraw=False)
    assert queued(demo) == [(GIVE_VIP, "purchase"), (REMOVE_VIP, "refund"), (REMOVE_VIP, "expiry")]


def test_a_fetch_racing_the_withdrawal_never_hands_out_the_withdrawn_command(
    demo: DemoStore, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plugin's Query reads the command; the refund withdraws it before the plugin's mark:
    the mark fails and the command is not in the response."""
    txn = manual_payment(invoke, demo.server_secret, packages=[{"id": 1}], price=4.99)["txn_id"]
    mark = QueueRepository._mark_fetched
    refunded = []

    def refund_first(self: QueueRepository, key: dict[str, str], now: int) -> bool:
        if not refunded:
            refunded.append(changes.change_payment(get_services(), 1, txn, "refund", None))
        return mark(self, key, now)

    monkeypatch.setattr(QueueRepository, "_mark_fetched", refund_first)
    assert offline(invoke, demo) == []
    assert refunded and refunded[0].status.value == "refund"
    assert queued(demo) == []


def test_a_fetch_between_the_refunds_read_and_write_keeps_the_command_and_queues_the_removal(
    demo: DemoStore, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refund reads the grant as undelivered; the plugin fetches it before the refund
    commits: the withdrawal's condition fails, the refund reads again and undoes it instead."""
    txn = manual_payment(invoke, demo.server_secret, packages=[{"id": 1}], price=4.99)["txn_id"]
    read = QueueRepository.undelivered
    handed: list[dict[str, Any]] = []

    def plugin_fetches_meanwhile(self: QueueRepository, account_id: int, commands: Any) -> Any:
        found = read(self, account_id, commands)
        if not handed:
            handed.extend(QueueRepository(demo.table).fetch(1, 1, keys.OFFLINE_PREFIX, 10, 0)[0])
        return found

    monkeypatch.setattr(QueueRepository, "undelivered", plugin_fetches_meanwhile)
    refund(invoke, demo, txn)
    assert [c.command for c in handed] == [GIVE_VIP]
    assert queued(demo) == [(GIVE_VIP, "purchase"), (REMOVE_VIP, "refund"), (REMOVE_VIP, "expiry")]
