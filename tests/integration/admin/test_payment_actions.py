"""The panel's payment page and actions under moto: command delivery states, refund,
chargeback, notes, resend (once per request), and store isolation."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.admin.money_support import handed_out, pay, use_clock
from tests.support.demo import DemoStore
from tests.support.threads import in_threads
from webstore import keys
from webstore.admin import payments as panel
from webstore.catalog_import import ImportResult
from webstore.errors import Conflict, Invalid, NotFound
from webstore.repo.payments import MAX_RESENDS, PaymentRepository
from webstore.repo.queue import QueueRepository
from webstore.services import get_services

RESEND = "0123456789abcdef0123456789abcdef"


def queued(demo: DemoStore) -> list[dict[str, Any]]:
    """The commands waiting on the demo store's two servers."""
    found = []
    for server_id in (1, 2):
        items, _ = demo.table.query(keys.queue_pk(1, server_id), sk_prefix="O", consistent=True)  # OFF#, ON#
        found += [i for i in items if i["entity"] == "command"]
    return found


@pytest.fixture(autouse=True)
def clock(demo: DemoStore) -> None:
    use_clock()


def test_detail_shows_each_command_and_whether_it_still_waits(demo: DemoStore) -> None:
    payment = pay("sword")  # package 10: two online commands
    detail = panel.payment_detail(get_services(), 1, payment.transaction_id)
    assert detail.payment.id == payment.id and detail.commands_total == 2
    assert [(c.plan, c.state) for c in detail.commands] == [("purchase", panel.QUEUED)] * 2
    assert detail.server_names == {1: "Survival", 2: "Creative"}
    # the plugin runs the first and deletes it (DELETE /queue)
    repo = QueueRepository(demo.table)
    first = detail.commands[0].command
    assert repo.delete_found(1, first.server_id, repo.pointers(1, first.server_id, [first.id]))
    after = panel.payment_detail(get_services(), 1, payment.transaction_id)
    assert [c.state for c in after.commands] == [panel.DONE, panel.QUEUED]


def test_refund_queues_the_refund_commands_once(demo: DemoStore) -> None:
    payment = pay("vip", package_id=1, price="4.99")
    handed_out()
    refunded = panel.refund(
        get_services(), 1, payment.transaction_id, "owner@example.test", get_services().now()
    )
    assert refunded.status == "refund"
    refund_commands = [c for c in queued(demo) if c["trigger"] == "refund"]
    assert [c["command"] for c in refund_commands] == ["lp user {username} parent remove vip"]
    assert (
        panel.refund(
            get_services(), 1, payment.transaction_id, "owner@example.test", get_services().now()
        ).status
        == "refund"
    )  # posted twice
    with pytest.raises(Conflict):
        panel.mark_chargeback(
            get_services(), 1, payment.transaction_id, "owner@example.test", get_services().now()
        )  # a refund is final
    assert len([c for c in queued(demo) if c["trigger"] == "refund"]) == 1
    states = panel.payment_detail(get_services(), 1, payment.transaction_id).commands
    assert ("refund", panel.QUEUED) in [(c.plan, c.state) for c in states]


def test_chargeback_queues_the_chargeback_commands(demo: DemoStore) -> None:
    payment = pay("vip", package_id=1, price="4.99")
    handed_out()
    assert (
        panel.mark_chargeback(
            get_services(), 1, payment.transaction_id, "owner@example.test", get_services().now()
        ).status
        == "chargeback"
    )
    assert [c["command"] for c in queued(demo) if c["trigger"] == "chargeback"] == [
        "lp user {username} parent remove vip"
    ]


def test_note_is_appended_and_checked(demo: DemoStore) -> None:
    payment = pay("sword")
    panel.add_note(
        get_services(),
        1,
        payment.transaction_id,
        "  called the player  ",
        "owner@example.test",
        get_services().now(),
    )
    stored = PaymentRepository(demo.table).by_transaction(1, payment.transaction_id)
    assert [n.note for n in stored.notes] == ["called the player"]
    with pytest.raises(Invalid) as empty:
        panel.add_note(
            get_services(), 1, payment.transaction_id, "   ", "owner@example.test", get_services().now()
        )
    assert empty.value.field == "note"
    with pytest.raises(Invalid) as long:
        panel.add_note(
            get_services(), 1, payment.transaction_id, "x" * 1001, "owner@example.test", get_services().now()
        )
    assert long.value.field == "note"


def test_resend_queues_the_commands_again_once_per_request(demo: DemoStore) -> None:
    payment = pay("sword")
    services = get_services()
    assert len(queued(demo)) == 2
    assert panel.resend(services, 1, payment.transaction_id, RESEND, "owner@example.test", services.now())
    assert len(queued(demo)) == 4
    # the same form posted again: nothing more
    assert not panel.resend(services, 1, payment.transaction_id, RESEND, "owner@example.test", services.now())
    assert len(queued(demo)) == 4
    stored = PaymentRepository(demo.table).by_transaction(1, payment.transaction_id)
    assert [(r.id, r.by, r.commands) for r in stored.resends] == [(RESEND, "owner@example.test", 2)]
    assert stored.chunks_done[f"resend-{RESEND}"] == 1
    # another request: again
    assert panel.resend(services, 1, payment.transaction_id, "f" * 32, "support@example.test", services.now())
    assert len(queued(demo)) == 6
    ids = [int(c["id"]) for c in queued(demo)]
    assert len(set(ids)) == 6  # every command its own id


def test_resend_is_refused_for_a_refunded_payment_and_bad_ids(demo: DemoStore) -> None:
    payment = pay("vip", package_id=1, price="4.99")
    services = get_services()
    with pytest.raises(Invalid) as bad:
        panel.resend(services, 1, payment.transaction_id, "not-hex", "owner", services.now())
    assert bad.value.field == "resend_id"
    panel.refund(services, 1, payment.transaction_id, "owner@example.test", get_services().now())
    before = len(queued(demo))
    with pytest.raises(Conflict) as refused:
        panel.resend(services, 1, payment.transaction_id, RESEND, "owner", services.now())
    assert refused.value.field == "status"
    assert len(queued(demo)) == before


def test_resends_are_capped(demo: DemoStore, monkeypatch: pytest.MonkeyPatch) -> None:
    payment = pay("sword")
    services = get_services()
    for n in range(MAX_RESENDS):
        panel.resend(services, 1, payment.transaction_id, f"{n:032x}", "owner", services.now())
    with pytest.raises(Invalid):
        panel.resend(services, 1, payment.transaction_id, "e" * 32, "owner", services.now())


def test_another_stores_owner_can_neither_see_nor_change_a_payment(
    demo: DemoStore, other_store: ImportResult
) -> None:
    payment = pay("sword")
    services = get_services()
    for action in (
        lambda: panel.payment_detail(services, 2, payment.transaction_id),
        lambda: panel.refund(services, 2, payment.transaction_id, "owner@example.test", get_services().now()),
        lambda: panel.mark_chargeback(
            services, 2, payment.transaction_id, "owner@example.test", get_services().now()
        ),
        lambda: panel.add_note(
            services, 2, payment.transaction_id, "mine now", "owner@example.test", get_services().now()
        ),
        lambda: panel.resend(services, 2, payment.transaction_id, RESEND, "intruder", services.now()),
    ):
        with pytest.raises(NotFound):
            action()
    stored = PaymentRepository(demo.table).by_transaction(1, payment.transaction_id)
    assert stored.status == "complete" and stored.notes == [] and stored.resends == []
    assert len(queued(demo)) == 2


def test_the_same_resend_posted_at_once_queues_once(demo: DemoStore) -> None:
    payment = pay("sword")
    services = get_services()
    outcomes: list[bool] = []

    def resend(_: int) -> None:
        outcomes.append(panel.resend(services, 1, payment.transaction_id, RESEND, "owner", services.now()))

    in_threads(resend, [(i,) for i in range(4)])
    assert sorted(outcomes) == [False, False, False, True]
    assert len(queued(demo)) == 4  # the purchase's 2 + the resend's 2
    stored = PaymentRepository(demo.table).by_transaction(1, payment.transaction_id)
    assert len(stored.resends) == 1


def test_each_action_leaves_an_audit_entry_naming_who(demo: DemoStore) -> None:
    from webstore.repo.audit_log import AuditLog

    clock = use_clock()
    payment = pay("vip", package_id=1, price="4.99")
    services = get_services()
    txn = payment.transaction_id
    panel.add_note(services, 1, txn, "hello", "support@example.test", services.now())
    clock.advance(1)
    panel.resend(services, 1, txn, RESEND, "support@example.test", services.now())
    clock.advance(1)
    panel.resend(services, 1, txn, RESEND, "support@example.test", services.now())  # nothing: no entry
    clock.advance(1)
    panel.refund(services, 1, txn, "owner@example.test", services.now())
    entries = AuditLog(demo.table).page(1).entries
    assert [(e.actor, e.action) for e in entries if e.action.startswith("payment.")] == [
        ("owner@example.test", "payment.refund"),
        ("support@example.test", "payment.resend"),
        ("support@example.test", "payment.note"),
    ]
    assert all(txn in e.summary for e in entries if e.action.startswith("payment."))
    [refunded] = [e for e in entries if e.action == "payment.refund"]
    assert refunded.summary.endswith(': status: "complete" → "refund"')
    assert AuditLog(demo.table).page(2).entries == []
    clock.advance(1)
    panel.refund(services, 1, txn, "owner@example.test", services.now())  # refunded already: no change
    assert len(AuditLog(demo.table).page(1).entries) == len(entries)


def test_an_action_the_store_refuses_leaves_no_audit_entry(demo: DemoStore) -> None:
    """The entry is one action of the change's own transaction: a change that does not commit
    (a refunded payment charged back) writes none."""
    from webstore.repo.audit_log import AuditLog

    payment = pay("vip", package_id=1, price="4.99")
    services = get_services()
    panel.refund(services, 1, payment.transaction_id, "owner@example.test", services.now())
    before = AuditLog(demo.table).page(1).entries
    with pytest.raises(Conflict):
        panel.mark_chargeback(services, 1, payment.transaction_id, "owner@example.test", services.now())
    assert AuditLog(demo.table).page(1).entries == before
