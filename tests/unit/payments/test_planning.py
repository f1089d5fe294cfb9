"""Payment planning rules, pure: lines, commands per trigger, tiers, goals, stats, chunking."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from tests.unit.payments.support import ALEX, NOW, RECIPIENTS, STEVE, demo_view, order
from webstore.catalog import CommandTrigger, CommunityGoal, Coupon, GoalStatus
from webstore.domain.payment_status import PaymentStatus
from webstore.errors import Conflict, Invalid
from webstore.payments import planning
from webstore.payments.core import take_payment_id
from webstore.payments.order import OrderLine
from webstore.players import RECENT_PAYMENTS_KEPT, RecentPayment, StoreStats, TierStatus
from webstore.repo.payments import PaymentLine, PaymentRecord
from webstore.repo.queue import QueuedCommand
from webstore.repo.sequences import IdAllocation


def lines_of(*order_lines: OrderLine) -> list[PaymentLine]:
    return planning.payment_lines(order(*order_lines), demo_view(), STEVE, RECIPIENTS)


def payment_of(*order_lines: OrderLine, payment_id: int = 1) -> PaymentRecord:
    the_order = order(*order_lines)
    lines = planning.payment_lines(the_order, demo_view(), STEVE, RECIPIENTS)
    return planning.new_payment(the_order, "USD", STEVE, lines, [], payment_id, NOW)


# --- lines ------------------------------------------------------------------------------------------


def test_lines_carry_the_catalog_and_the_receiver() -> None:
    [sword, gift] = lines_of(
        OrderLine(package_id=10, quantity=2, paid_price=Decimal("5")),
        OrderLine(package_id=20, paid_price=Decimal("1.99"), gift_username="Alex"),
    )
    assert (sword.name, sword.base_price, sword.price, sword.username_id) == (
        "Diamond Sword",
        Decimal("2.50"),
        Decimal("5"),
        STEVE.id,
    )
    assert (gift.username, gift.username_id, gift.uuid) == ("Alex", ALEX.id, ALEX.uuid)


@pytest.mark.parametrize(
    ("line", "field"),
    [
        (OrderLine(package_id=999, paid_price=Decimal(1)), "packages.0.id"),
        (OrderLine(package_id=1, quantity=2, paid_price=Decimal(1)), "packages.0.quantity"),  # one at a time
        (OrderLine(package_id=12, quantity=2, paid_price=Decimal(1)), "packages.0.quantity"),  # user_limit 1
        (OrderLine(package_id=13, paid_price=Decimal(1)), "packages.0.options"),  # needs {note}
        (OrderLine(package_id=5, dynamic=True, paid_price=Decimal(1)), "packages.0"),  # no name
    ],
)
def test_lines_the_catalog_refuses_name_the_field(line: OrderLine, field: str) -> None:
    with pytest.raises(Invalid) as refused:
        lines_of(line)
    assert refused.value.field == field


def test_only_the_package_variables_are_kept() -> None:
    [line] = lines_of(OrderLine(package_id=13, paid_price=Decimal(5), variables={"note": "hi", "other": "x"}))
    assert line.variables == {"note": "hi"}


def test_split_price_adds_up_to_the_total() -> None:
    shares = planning.split_price(Decimal("10.00"), [Decimal("4.99"), Decimal("2.50"), Decimal("5")], "USD")
    assert sum(shares) == Decimal("10.00")
    assert shares == [
        Decimal("3.99"),
        Decimal("2.00"),
        Decimal("4.01"),
    ]  # rounded down; the last takes the rest
    assert planning.split_price(Decimal("3"), [Decimal(0), Decimal(0)], "USD") == [
        Decimal("1.50"),
        Decimal("1.50"),
    ]


# --- commands ---------------------------------------------------------------------------------------


def test_commands_per_unit_and_trigger_with_variables_filled() -> None:
    lines = lines_of(
        OrderLine(package_id=10, quantity=2, paid_price=Decimal(5)),
        OrderLine(package_id=13, paid_price=Decimal(5), variables={"note": "hi"}),
    )
    view = demo_view()
    view.packages[5].commands[0].command = "eco give {username} 1000 {note} {id}"
    purchase = planning.commands_for(lines, view, CommandTrigger.PURCHASE, NOW)
    assert [(c.server_id, c.package_id) for c in purchase] == [(1, 10), (2, 10), (1, 10), (2, 10), (1, 13)]
    assert purchase[-1].command == "eco give {username} 1000 hi {id}"  # {id} stays for the plugin
    assert planning.commands_for(lines, view, CommandTrigger.REFUND, NOW) == []


def test_dynamic_lines_queue_nothing_and_count_toward_nothing() -> None:
    lines = lines_of(
        OrderLine(package_id=5, dynamic=True, name="Custom", category_id=4, paid_price=Decimal(3))
    )
    assert planning.commands_for(lines, demo_view(), CommandTrigger.PURCHASE, NOW) == []
    assert planning.purchase_counts(lines) == {}


def test_purchase_counts_add_up_per_receiver() -> None:
    lines = lines_of(
        OrderLine(package_id=10, quantity=2, paid_price=Decimal(5)),
        OrderLine(package_id=10, paid_price=Decimal("2.5")),
        OrderLine(package_id=10, paid_price=Decimal("2.5"), gift_username="Alex"),
    )
    assert planning.purchase_counts(lines) == {STEVE.id: {10: 3}, ALEX.id: {10: 1}}


def command(n: int, *, online: bool = False, player: int = 1) -> QueuedCommand:
    return QueuedCommand(
        id=n,
        server_id=1,
        command="x",
        require_online=online,
        username_id=player,
        username="p",
        created_at=NOW,
    )


def test_chunks_fill_the_payment_transaction_then_99_actions_each() -> None:
    offline = [command(n) for n in range(1, 101)]  # 2 actions each + 1 counter per chunk
    chunks = planning.chunk_commands(offline, 11)
    assert [len(c) for c in chunks] == [5, 49, 46]
    assert planning.chunk_commands(offline[:3], 0)[0] == []  # no room left beside the payment


def test_plan_commands_records_the_plan_and_marks_the_first_chunk_done() -> None:
    payment = payment_of()
    first = planning.plan_commands(payment, "purchase", [command(n) for n in range(1, 61)], 21)
    assert len(first) == 10
    assert [len(c) for c in payment.plans["purchase"]] == [10, 49, 1]
    assert payment.chunks_done == {"purchase": 1}
    assert payment.pending_chunks("purchase") == payment.plans["purchase"][1:]
    empty = payment_of()
    assert planning.plan_commands(empty, "refund", [], 92) == [] and empty.chunks_done == {"refund": 0}


# --- the payment ------------------------------------------------------------------------------------


def test_new_payment_has_the_id_taken_for_it_and_rounds_the_amount() -> None:
    the_order = order(OrderLine(package_id=10, paid_price=Decimal("2.504")), note="cash")
    lines = planning.payment_lines(the_order, demo_view(), STEVE, RECIPIENTS)
    ids = IdAllocation(the_order.account_id, {"payment": 41})
    payment = planning.new_payment(the_order, "USD", STEVE, lines, [], take_payment_id(ids), NOW)
    assert payment.id == 42 and payment.transaction_id.startswith("tbx-42-")
    assert payment.amount == Decimal("2.50")
    assert payment.status is PaymentStatus.COMPLETE
    assert [n.note for n in payment.notes] == ["cash"]
    with pytest.raises(Conflict):
        take_payment_id(IdAllocation(the_order.account_id, {"payment": 2**31 - 1}))


def coupon(**fields: object) -> Coupon:
    discount = {"type": "value", "value": "1.00"}
    return Coupon.model_validate({"discount": discount, "created_at": NOW, **fields})


def test_order_coupons_once_each_and_only_the_players_own() -> None:
    found = {"SWORD1": coupon(id=2, code="SWORD1"), "MINE": coupon(id=3, code="MINE", username="alex")}
    assert [c.code for c in planning.order_coupons(["sword1", "SWORD1"], found, STEVE)] == ["SWORD1"]
    with pytest.raises(Invalid, match="does not exist"):
        planning.order_coupons(["NOPE"], found, STEVE)
    with pytest.raises(Invalid, match="another player"):
        planning.order_coupons(["MINE"], found, STEVE)
    assert planning.order_coupons(["MINE"], found, ALEX)


# --- tiers ------------------------------------------------------------------------------------------


def test_the_last_subscription_line_per_player_and_tiered_category_sets_the_tier() -> None:
    lines = lines_of(
        OrderLine(package_id=1, paid_price=Decimal("4.99")),
        OrderLine(package_id=2, paid_price=Decimal("9.99")),
        OrderLine(package_id=1, paid_price=Decimal("4.99"), gift_username="Alex"),
        OrderLine(package_id=10, paid_price=Decimal("2.50")),
    )
    chosen = planning.tier_lines(lines, demo_view())
    assert [(line.username_id, line.package_id) for line in chosen] == [(STEVE.id, 2), (ALEX.id, 1)]


def test_a_new_tier_is_active_until_one_period_later() -> None:
    payment = payment_of(OrderLine(package_id=1, paid_price=Decimal("4.99")))
    view = demo_view()
    start = datetime(2026, 1, 31, 9, 30, tzinfo=UTC)
    tier = planning.new_tier(payment.lines[0], view.packages[0], 7, payment, start)
    assert (tier.id, tier.status_id, tier.active) == (7, TierStatus.ACTIVE, True)
    assert tier.recurring_payment_reference == payment.transaction_id
    assert tier.next_payment_date == datetime(2026, 2, 28, 9, 30, tzinfo=UTC)  # clamped to month end


# --- goals and stats --------------------------------------------------------------------------------


def goal(**fields: object) -> CommunityGoal:
    base = {"id": 1, "name": "G", "target": "100", "created_at": NOW, "updated_at": NOW}
    return CommunityGoal.model_validate({**base, **fields})


def test_a_one_off_goal_completes_and_a_repeatable_one_wraps_around() -> None:
    done = planning.advance_goal(goal(current="90"), Decimal(15), NOW)
    assert (done.current, done.status, done.times_achieved, done.last_achieved) == (
        Decimal(105),
        GoalStatus.COMPLETED,
        1,
        NOW,
    )
    wrapped = planning.advance_goal(goal(current="90", repeatable=True), Decimal(215), NOW)
    assert (wrapped.current, wrapped.status, wrapped.times_achieved) == (Decimal(5), GoalStatus.ACTIVE, 3)
    assert planning.advance_goal(goal(target="0"), Decimal(5), NOW).current == Decimal(5)


def recent(n: int) -> RecentPayment:
    return RecentPayment(username=f"p{n}", package="VIP", amount=Decimal(1), currency="USD", date=NOW)


def test_recent_payments_are_capped_newest_first() -> None:
    full = [recent(n) for n in range(RECENT_PAYMENTS_KEPT)]
    kept = planning.with_recent(full, recent(99))
    assert len(kept) == RECENT_PAYMENTS_KEPT == 10
    assert [p.username for p in kept[:2]] == ["p99", "p0"] and kept[-1].username == "p8"
    # A list stored longer than the cap (an older writer) is cut back on the next payment.
    assert len(planning.with_recent([recent(n) for n in range(25)], recent(99))) == RECENT_PAYMENTS_KEPT


def test_stats_count_the_month_and_keep_the_top_customer() -> None:
    payment = payment_of(OrderLine(package_id=10, paid_price=Decimal("2.50")))
    last_month = StoreStats(
        month="2026-02",
        month_revenue=Decimal(100),
        top_customer={"username": "Alex", "total": Decimal(100)},
        recent_payments=[recent(n) for n in range(12)],
    )
    stats = planning.stats_after(last_month, payment, STEVE, Decimal("2.50"), NOW)
    assert (stats.month, stats.month_revenue) == ("2026-03", Decimal("2.50"))
    assert stats.top_customer == {
        "username": "Steve",
        "username_id": STEVE.id,
        "platform_id": STEVE.uuid.replace("-", ""),
        "total": Decimal("2.50"),
    }
    assert len(stats.recent_payments) == RECENT_PAYMENTS_KEPT
    assert stats.recent_payments[0].package == "Diamond Sword"
    assert last_month.month == "2026-02" and len(last_month.recent_payments) == 12  # not changed in place
    later = planning.stats_after(stats, payment, ALEX, Decimal("1.00"), NOW + timedelta(hours=1))
    assert later.month_revenue == Decimal("5.00") and later.top_customer["username"] == "Steve"  # type: ignore[index]


# --- status changes ---------------------------------------------------------------------------------


def test_counters_follow_status_and_owner_changes() -> None:
    payment = payment_of(OrderLine(package_id=10, paid_price=Decimal("2.50")))
    refunded = payment.model_copy(update={"status": PaymentStatus.REFUND})
    [change] = planning.counter_changes(payment, refunded)
    assert change.counters == {"total_USD": Decimal("-2.50"), "chargebacks": 0}
    charged_back = payment.model_copy(update={"status": PaymentStatus.CHARGEBACK})
    [change] = planning.counter_changes(payment, charged_back)
    assert change.counters == {"total_USD": Decimal("-2.50"), "chargebacks": 1}
    assert planning.counter_changes(payment, payment) == []
    moved = planning.reassigned(payment, ALEX)
    assert [line.username for line in moved.lines] == ["Alex"] and payment.username == "Steve"
    old, new = planning.counter_changes(payment, moved)
    assert (old.username_id, old.counters, old.new_owner) == (
        STEVE.id,
        {"payments": -1, "total_USD": Decimal("-2.50"), "chargebacks": 0},
        False,
    )
    assert (new.username_id, new.counters, new.new_owner) == (
        ALEX.id,
        {"payments": 1, "total_USD": Decimal("2.50"), "chargebacks": 0},
        True,
    )
