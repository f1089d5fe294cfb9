"""The transaction that records a payment, built from fake reads (nothing is written)."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace
from typing import Any, cast

from tests.unit.payments.support import NOW, RECIPIENTS, STEVE, demo_view, order
from webstore.catalog import Coupon, GoalStatus
from webstore.errors import Conflict
from webstore.payments import planning
from webstore.payments.core import take_payment_id
from webstore.payments.order import OrderLine
from webstore.payments.recording import _Recording
from webstore.repo.payment_effects import EffectReads, GoalRead
from webstore.repo.payments import GiftCardUse
from webstore.repo.sequences import IdAllocation
from webstore.services import Services


def record(reads: EffectReads, *lines: OrderLine, **fields: Any) -> tuple[list[str], list[Conflict | None]]:
    """The recording transaction's actions (kind and key) and their labels."""
    the_order = order(*lines, **fields)
    view = demo_view()
    payment_lines = planning.payment_lines(the_order, view, STEVE, RECIPIENTS)
    services = cast(Services, SimpleNamespace(table=None))
    recording = _Recording(services, the_order, view, STEVE, payment_lines, NOW)
    reads.ids = IdAllocation(the_order.account_id, {"payment": 4, "tier": 499})
    payment = recording.payment(reads, take_payment_id(reads.ids))
    tier_lines = planning.tier_lines(payment_lines, view)
    tx = recording.transaction(reads, payment, tier_lines)
    reads.ids.add_to(tx)  # as fulfil does: the one update of the sequences, with every id taken
    described = []
    for action in tx.actions:
        body = action.body
        key = body.get("Key") or body["Item"]
        described.append(f"{action.kind} {key['SK']['S']}")
    return described, cast(list[Conflict | None], tx.labels)


def coupon(code: str, **fields: Any) -> Coupon:
    discount = {"type": "value", "value": "1.00"}
    return Coupon.model_validate({"id": 2, "code": code, "discount": discount, "created_at": NOW, **fields})


def test_a_plain_payment_touches_sequence_order_counts_stats_and_player() -> None:
    actions, labels = record(EffectReads(), OrderLine(package_id=10, paid_price=Decimal("2.5")))
    assert actions == [
        "Put ORDER#unit-1",  # what every paid payment adds (payments.core) …
        "Put 4STATS",
        f"Update DAYSTATS#{NOW.date().isoformat()}",
        f"Update SPEND#2026-03#{STEVE.id:010d}",
        f"Update PLAYER#{STEVE.id:010d}",
        "Put PLAYERNAME#steve",
        f"Put PLAYERUUID#{STEVE.uuid}",
        f"Update PURCHASES#{STEVE.id:010d}",  # … then what an order's lines add
        "Update SEQ",
    ]
    assert labels == [None] * len(actions)  # no limit: any failure is contention


def test_limits_are_labelled_with_the_error_they_mean() -> None:
    reads = EffectReads(
        coupons={"SWORD1": coupon("SWORD1", redeem_unlimited=False, expire_limit=100, user_limit=1)}
    )
    actions, labels = record(
        reads,
        OrderLine(package_id=12, paid_price=Decimal(3)),  # user_limit 1
        coupons=["sword1"],
        giftcards=[
            GiftCardUse(card_number="GC-1", amount=Decimal(1)),
            GiftCardUse(card_number="GC-2", amount=0),
        ],
    )
    by_action = {a: str(label.detail) for a, label in zip(actions, labels, strict=True) if label}
    assert by_action == {
        "Update COUPONCODE#SWORD1": "Coupon SWORD1 has reached its redemption limit",
        f"Update COUPONUSE#{2:010d}#{STEVE.id:010d}": "Coupon SWORD1 may be used 1 time(s) per player",
        "Update GIFTCARD#GC-1": "Gift card GC-1 does not cover 1",
        f"Update PURCHASES#{STEVE.id:010d}": "A package's purchase limit per player has been reached",
    }
    assert not any("GC-2" in a for a in actions)  # a card that pays nothing is not touched
    assert all(
        label.field == "coupons" for a, label in zip(actions, labels, strict=True) if label and "COUPON" in a
    )


def test_active_goals_progress_and_tiers_claim_a_slot_only_when_new() -> None:
    view = demo_view()
    active, ended = view.goals[0], view.goals[0].model_copy(update={"id": 2, "status": GoalStatus.COMPLETED})
    reads = EffectReads(
        goals=[GoalRead(active, None, None), GoalRead(ended, Decimal(250), 1)],
        tier_slots={(STEVE.id, 1): 77},
    )
    actions, _ = record(reads, OrderLine(package_id=1, paid_price=Decimal("4.99")))
    assert "Update 2GOAL#0000000001" in actions and "Update 2GOAL#0000000002" not in actions
    assert [a for a in actions if "TIER" in a] == [f"Put TIER#{77:010d}"]  # slot read: its tier id is kept
    actions, _ = record(EffectReads(), OrderLine(package_id=1, paid_price=Decimal("4.99")))
    assert [a for a in actions if "TIER" in a] == [
        f"Put TIERSLOT#{STEVE.id:010d}#{1:010d}",
        f"Put TIER#{500:010d}",
    ]


def test_enqueue_adds_what_chunking_counts_on() -> None:
    from webstore.db import Table, Transaction
    from webstore.repo.queue import QueuedCommand, QueueRepository, enqueue_cost

    def command(n: int, server: int, online: bool, player: int) -> QueuedCommand:
        return QueuedCommand(
            id=n,
            server_id=server,
            command="x",
            require_online=online,
            username_id=player,
            username=f"p{player}",
            created_at=NOW,
        )

    commands = [
        command(1, 1, False, 1),
        command(2, 1, True, 1),
        command(3, 1, True, 2),
        command(4, 2, True, 1),
    ]
    commands += [command(5, 1, False, 2), command(6, 1, True, 1)]
    tx = Transaction(cast(Table, None))
    QueueRepository.add_enqueue(tx, 1, commands)
    assert (
        len(tx) == enqueue_cost(commands) == 12 + 4
    )  # 2 per command; counters: state, due p1, due p2, s2 p1
    assert all(label is None for label in tx.labels)
