"""Pure planning of subscriptions (no table): what a purchase starts, what a renewal, a declined
attempt and an end make of a recurring payment, and how a timed package's timer stacks."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

import pytest

from tests.unit.payments.support import NOW, RECIPIENTS, STEVE, demo_view, order
from webstore.catalog import CommandTrigger, Package
from webstore.payments import planning as payment_planning
from webstore.payments.order import OrderLine
from webstore.players import Tier, TierStatus
from webstore.recurring import (
    PAYMENT_HISTORY_LIMIT,
    RecurringPayment,
    RecurringStatus,
    TimedPackage,
    history_with,
)
from webstore.repo.payments import PaymentRecord
from webstore.subscriptions import planning
from webstore.subscriptions.endings import plan_ending
from webstore.subscriptions.planning import DueAction

VIEW = demo_view()
SK = "2026-04-15T12:00:00.000000Z#renewal#0000000001#tbx-1-00000000"


def payment(*lines: OrderLine) -> PaymentRecord:
    made = order(*lines)
    paid = payment_planning.payment_lines(made, VIEW, STEVE, RECIPIENTS)
    return payment_planning.new_payment(made, "USD", STEVE, paid, [], 1, NOW)


def _started() -> RecurringPayment:
    first = payment(OrderLine(package_id=2, paid_price=Decimal("8.00")))  # MVP, discounted
    started = planning.new_recurring(first, VIEW, {(STEVE.id, 1): 7}, "card", NOW)
    assert started is not None
    return started


STARTED = _started()


def subscription(**changes: object) -> RecurringPayment:
    return STARTED.model_copy(update={"schedule_sk": SK, **changes})


def tier(**changes: object) -> Tier:
    values: dict[str, object] = {
        "id": 7,
        "username_id": STEVE.id,
        "category_id": 1,
        "package_id": 2,
        "recurring_payment_reference": subscription().reference,
        "created_at": NOW,
        "next_payment_date": NOW + timedelta(days=31),
        **changes,
    }
    return Tier.model_validate(values)


def test_a_subscription_line_starts_a_recurring_payment_at_list_price() -> None:
    started = subscription()
    assert started.reference.startswith("tbx-1-") and started.lines[0].tier_id == 7
    assert started.amount == Decimal("9.99")  # the consent's price, not the first discount
    assert (started.period_length, started.period_unit) == (1, "month")
    assert started.next_payment_at == datetime(2026, 4, 15, 12, tzinfo=NOW.tzinfo)
    assert (started.payment_sequence, started.fail_count, started.status) == (1, 0, RecurringStatus.ACTIVE)
    assert (started.payment_history, started.payment_count) == ([started.reference], 1)


def test_one_off_lines_start_nothing() -> None:
    assert planning.new_recurring(payment(), VIEW, {}, "card", NOW) is None


def test_what_a_due_item_means() -> None:
    rp, own = subscription(), {7: tier()}
    assert planning.due_action(rp, SK, own) is DueAction.CHARGE
    assert planning.due_action(rp, "another", own) is DueAction.STALE
    assert planning.due_action(None, SK, own) is DueAction.STALE
    assert (
        planning.due_action(rp.model_copy(update={"status": RecurringStatus.EXPIRED}), SK, own)
        is DueAction.STALE
    )
    assert (
        planning.due_action(rp.model_copy(update={"cancel_requested_at": NOW}), SK, own)
        is DueAction.END_CANCELLED
    )
    assert planning.due_action(rp.model_copy(update={"saved_method": ""}), SK, own) is DueAction.END_NO_METHOD
    replaced = {7: tier(recurring_payment_reference="tbx-9-99999999")}
    assert planning.due_action(rp, SK, replaced) is DueAction.END_REPLACED


def test_a_renewal_moves_one_period_on_from_the_billing_date_and_applies_a_downgrade() -> None:
    rp = subscription(fail_count=2, status=RecurringStatus.PAST_DUE)
    pending = {7: tier(status_id=TierStatus.PENDING_DOWNGRADE, pending_downgrade_package_id=1)}
    lines = planning.current_lines(rp, pending, VIEW)
    assert [(line.package_id, line.price) for line in lines] == [(1, Decimal("4.99"))]
    after = planning.renewed(rp, lines, 5, "tbx-5-abc", "next", NOW + timedelta(days=34))
    assert after.next_payment_at == datetime(2026, 5, 15, 12, tzinfo=NOW.tzinfo)  # paid on a retry
    assert (after.payment_sequence, after.fail_count, after.status) == (2, 0, RecurringStatus.ACTIVE)
    assert (after.last_payment_id, after.amount, after.schedule_sk) == (5, Decimal("4.99"), "next")
    renewed = planning.renewed_tier(pending[7], after.next_payment_at)  # type: ignore[arg-type]
    assert (renewed.package_id, renewed.status_id, renewed.pending_downgrade_package_id) == (1, 1, None)


def test_a_renewal_adds_its_payment_to_the_history_unless_the_record_predates_it() -> None:
    rp = subscription(payment_history=["tbx-1-aaa"], payment_count=1)
    after = planning.renewed(rp, rp.lines, 5, "tbx-5-bbb", "next", NOW)
    assert (after.payment_history, after.payment_count) == (["tbx-1-aaa", "tbx-5-bbb"], 2)
    predates = subscription(payment_history=None, payment_count=0)
    old = planning.renewed(predates, rp.lines, 5, "tbx-5-bbb", "next", NOW)
    assert (old.payment_history, old.payment_count) == (None, 0)


def test_the_payment_history_keeps_the_latest_payments_and_counts_all() -> None:
    assert history_with(None, "tbx-9-x") is None
    full = [f"tbx-{n}-x" for n in range(1, PAYMENT_HISTORY_LIMIT + 1)]
    assert history_with(full[:-1], full[-1]) == full
    assert history_with(full, "tbx-99-x") == [*full[1:], "tbx-99-x"]
    rp = subscription(payment_history=full, payment_count=30)
    assert rp.history_update("tbx-99-x") == {"payment_history": [*full[1:], "tbx-99-x"], "payment_count": 31}


def test_declines_follow_the_retry_days_then_expire() -> None:
    rp = subscription()
    due = rp.next_payment_at
    assert due is not None
    retries = []
    for _ in range(3):
        rp = planning.declined(rp, [1, 3, 5], "retry", NOW)
        retries.append(rp.retry_at)
        assert rp.status is RecurringStatus.PAST_DUE
    assert retries == [due + timedelta(days=d) for d in (1, 3, 5)]
    last = planning.declined(rp, [1, 3, 5], None, NOW)
    assert (last.status, last.fail_count, last.schedule_sk) == (RecurringStatus.EXPIRED, 4, None)
    assert last.cancel_reason == planning.REASON_DECLINED and last.cancelled_at == NOW


def test_an_ending_queues_expiry_commands_and_ends_its_own_tiers_only() -> None:
    rp = subscription(cancel_requested_at=NOW, cancel_reason="player")
    ending = plan_ending(rp, {7: tier()}, VIEW, RecurringStatus.CANCELLED, None, NOW)
    assert ending.after.cancel_reason == "player" and ending.after.status is RecurringStatus.CANCELLED
    assert [(t.status_id, t.active) for _, t in ending.tiers] == [(TierStatus.CANCELLED, False)]
    assert [c.command for c in ending.expiry_commands] == ["lp user {username} parent remove mvp"]
    assert {c.trigger for c in ending.expiry_commands} == {CommandTrigger.EXPIRY.value}
    moved_on = {7: tier(recurring_payment_reference="tbx-9-99999999")}
    quiet = plan_ending(rp, moved_on, VIEW, RecurringStatus.CANCELLED, "replaced", NOW, commands=False)
    assert quiet.tiers == [] and quiet.expiry_commands == []


def test_idempotency_keys_are_per_cycle_and_attempt() -> None:
    rp = subscription()
    first, retry = planning.idempotency(rp), planning.idempotency(rp.model_copy(update={"fail_count": 1}))
    assert first.order == retry.order == f"renewal-{rp.reference}-2"
    assert first.charge != retry.charge
    assert planning.idempotency(rp) == first


@pytest.mark.parametrize(
    ("previous_end", "expired", "expected_days"),
    [
        (None, False, 14),
        (NOW + timedelta(days=3), False, 17),
        (NOW - timedelta(days=1), False, 14),
        (NOW + timedelta(days=3), True, 14),
    ],
)
def test_a_timer_stacks_only_while_it_runs(
    previous_end: datetime | None, expired: bool, expected_days: int
) -> None:
    fly = Package.model_validate(
        {
            "id": 30,
            "category_id": 2,
            "name": "Fly",
            "price": "1.00",
            "expiry_length": 7,
            "expiry_period": "day",
            "created_at": NOW,
            "updated_at": NOW,
        }
    )
    paid = payment()
    line = paid.lines[0].model_copy(update={"package_id": 30, "quantity": 2})
    previous = None
    if previous_end is not None:
        previous = TimedPackage(
            account_id=1,
            username_id=STEVE.id,
            username="Steve",
            package_id=30,
            payment_id=1,
            expires_at=previous_end,
            expired=expired,
            updated_at=NOW,
        )
    start = previous_end if previous_end and previous_end > NOW and not expired else NOW
    timer = planning.timer_after(previous, line, fly, paid, NOW)
    assert timer.expires_at == start + timedelta(days=14)
    assert timer.expires_at - NOW == timedelta(days=expected_days)


def test_a_renewal_charge_key_names_its_subscription_and_cycle_and_nothing_else_does() -> None:
    reference = subscription().reference
    keys = planning.idempotency(subscription(payment_sequence=3, fail_count=1))
    assert planning.charged_cycle(keys.charge) == (reference, 4)
    assert keys.order == planning.renewal_order_key(reference, 4)
    for other in ("tier-upgrade-1-7-3-2026-1", "renewal-x", "renewal--2-1", f"renewal-{'a' * 65}-2-1", ""):
        assert planning.charged_cycle(other) is None, other


def test_a_declined_attempt_keeps_its_action_until_paid_replaced_or_ended() -> None:
    before = subscription()
    action = planning.renewal_action(before, "renewal-x-2-1", "pi_1", Decimal("5.00"), "https://pay.test/1")
    assert action is not None and action.cycle == before.payment_sequence + 1
    assert planning.renewal_action(before, "renewal-x-2-1", "pi_1", Decimal("5.00"), "") is None  # no link
    declined = planning.declined(before, [1, 3], "sk", NOW, action)
    assert declined.renewal_action == action
    assert planning.declined(declined, [1, 3], "sk2", NOW).renewal_action is None  # a plain decline now
    assert planning.renewed(declined, declined.lines, 9, "tbx-9-abc", "sk3", NOW).renewal_action is None
    ended = planning.ended(declined, RecurringStatus.CANCELLED, "refund", NOW)
    assert ended.renewal_action is None
    assert planning.declined(declined, [], None, NOW, action).renewal_action is None  # the last: expired
