"""The dashboard's aggregates under moto: a payment, a renewal, a refund, a chargeback and a
chargeback won back each move their day's counters exactly once (a retried, resumed or repeated
run counts nothing more), the subscription count follows its records, failing webhook deliveries
are listed until they succeed, and one store never sees another's figures."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
import time_machine

from tests.integration.subscriptions.support import buy, run
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore.admin.dashboard import Dashboard, dashboard
from webstore.catalog_import import ImportResult
from webstore.errors import Conflict, Invalid
from webstore.payments import changes
from webstore.payments.order import Order, OrderLine
from webstore.payments.recording import fulfil, resume
from webstore.repo import Contention, Transaction
from webstore.repo.daily_stats import DayFigures, day_key, figures_of
from webstore.repo.webhooks import Failure, WebhookRepository
from webstore.services import get_services

NOW = datetime(2026, 3, 10, 15, tzinfo=UTC)
TODAY = NOW.date()


def order(key: str, *, account: int = 1, username: str = "Steve", price: str = "7.49") -> Order:
    return Order(
        account_id=account,
        idempotency_key=key,
        username=username,
        lines=[
            OrderLine(package_id=10, paid_price=Decimal("2.50")),
            OrderLine(
                package_id=11, paid_price=Decimal(price) - Decimal("2.50"), variables={"world": "survival"}
            ),
        ],
        price_paid=Decimal(price),
        currency="USD",
    )


def day(when: date, account: int = 1) -> DayFigures:
    item = get_services().table.get(day_key(account, when), consistent=True)
    return figures_of(when, item)


def board(account: int = 1, days: int = 30, now: datetime = NOW) -> Dashboard:
    return dashboard(get_services(), account, now, days)


def test_a_payment_counts_once_however_often_its_order_is_recorded_or_resumed(demo: DemoStore) -> None:
    services = get_services()
    with time_machine.travel(NOW, tick=False):
        payment = fulfil(services, order("dash-1"))
        again = fulfil(services, order("dash-1"))  # the same order handed over again
        resume(services, 1, payment.id)  # a caller finishing what the run left undone
    assert again.id == payment.id
    figures = day(TODAY)
    assert (figures.payments, figures.revenue) == (1, {"USD": Decimal("7.49")})
    assert {p: (s.name, s.count, s.revenue["USD"]) for p, s in figures.packages.items()} == {
        10: ("Diamond Sword", 1, Decimal("2.50")),
        11: (figures.packages[11].name, 1, Decimal("4.99")),
    }


def test_a_retried_attempt_counts_only_the_attempt_that_committed(
    demo: DemoStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first commit is lost to contention (as when another payment took the id): fulfilment
    reads again and commits once; the day counts one payment."""
    commit = Transaction.commit
    failures = iter([True])

    def contended_once(tx: Transaction) -> None:
        if next(failures, False):
            raise Contention(["TransactionConflict"])
        commit(tx)

    monkeypatch.setattr(Transaction, "commit", contended_once)
    with time_machine.travel(NOW, tick=False):
        fulfil(get_services(), order("dash-retry"))
    assert day(TODAY).payments == 1


def test_concurrent_payments_each_count(demo: DemoStore) -> None:
    from tests.support.threads import in_threads

    with time_machine.travel(NOW, tick=False):
        in_threads(lambda key: fulfil(get_services(), order(key)), [(f"dash-c{i}",) for i in range(4)])
    figures = day(TODAY)
    assert (figures.payments, figures.revenue["USD"], figures.packages[10].count) == (4, Decimal("29.96"), 4)


def test_refund_chargeback_and_chargeback_won_count_once_on_the_day_they_happen(demo: DemoStore) -> None:
    services = get_services()
    with time_machine.travel(NOW, tick=False):
        refunded = fulfil(services, order("dash-r"))
        disputed = fulfil(services, order("dash-c", price="5"))
    later = NOW + timedelta(days=1)
    with time_machine.travel(later, tick=False):
        changes.change_payment(services, 1, refunded.transaction_id, "refund", None)
        changes.change_payment(services, 1, refunded.transaction_id, "refund", None)  # no change
        with pytest.raises(Conflict):  # a refund is final
            changes.change_payment(services, 1, refunded.transaction_id, "complete", None)
        changes.change_payment(services, 1, disputed.transaction_id, "chargeback", None)
        changes.change_payment(services, 1, disputed.transaction_id, "chargeback", None)  # no change
        changes.change_payment(services, 1, disputed.transaction_id, "complete", None)  # won back
        changes.change_payment(services, 1, disputed.transaction_id, None, "Alex")  # owner only: nothing
    first, second = day(TODAY), day(later.date())
    assert (first.payments, first.refunds, first.chargebacks) == (2, 0, 0)
    assert (second.payments, second.refunds, second.refunded) == (0, 1, {"USD": Decimal("7.49")})
    assert (second.chargebacks, second.charged_back) == (1, {"USD": Decimal("5")})
    assert (second.chargebacks_won, second.won_back) == (1, {"USD": Decimal("5")})
    figures = board(now=later)
    assert figures.range_totals.revenue == Decimal("12.49")
    assert figures.range_totals.net == Decimal("5.00")
    assert [p.refunds for p in figures.series[-2:]] == [0, 1]


def test_a_renewal_counts_as_a_payment_of_its_day_and_the_subscription_count_follows(
    demo: DemoStore, invoke: Invoke
) -> None:
    start = datetime(2026, 6, 1, 12, tzinfo=UTC)
    renewal = datetime(2026, 7, 1, 12, tzinfo=UTC)
    with time_machine.travel(start, tick=False) as traveller:
        first = buy(invoke, demo, {"package_id": 1})
        assert board(now=start).active_subscriptions == 1
        traveller.move_to(renewal)
        run(renewal)
        run(renewal)  # the same instant again: nothing more
        renewed = day(renewal.date())
        assert (renewed.payments, renewed.revenue, renewed.packages[1].count) == (
            1,
            {"USD": Decimal("4.99")},
            1,
        )
        assert board(now=renewal).active_subscriptions == 1
        # A refund of the first payment ends the subscription: the count drops once.
        changes.change_payment(get_services(), 1, first["txn_id"], "refund", None)
        assert board(now=renewal).active_subscriptions == 0
        assert day(renewal.date()).refunds == 1
    months = board(now=renewal).months
    assert (months.so_far.payments, months.last_in_full.payments) == (1, 1)


def test_an_ended_subscription_leaves_the_count_through_the_processor(
    demo: DemoStore, invoke: Invoke
) -> None:
    from webstore.checkout.gateway import SANDBOX_RENEWAL_DECLINED_CARD

    start = datetime(2026, 6, 1, 12, tzinfo=UTC)
    with time_machine.travel(start, tick=False) as traveller:
        buy(invoke, demo, {"package_id": 1}, card=SANDBOX_RENEWAL_DECLINED_CARD)
        assert board(now=start).active_subscriptions == 1
        later = datetime(2026, 8, 1, 12, tzinfo=UTC)  # every retry declined: it expires
        traveller.move_to(later)
        run(later)
        assert board(now=later).active_subscriptions == 0


def test_the_dashboard_shows_the_range_top_packages_recent_payments_and_failing_deliveries(
    demo: DemoStore,
) -> None:
    services = get_services()
    for back, key in ((40, "january"), (20, "february"), (5, "a"), (0, "b")):
        with time_machine.travel(NOW - timedelta(days=back), tick=False):
            fulfil(services, order(f"dash-{key}"))
    webhooks = WebhookRepository(services.table, services.secrets)
    claim = webhooks.claim(1, "evt-1", "payment.completed", 1, timedelta(seconds=30), NOW)
    webhooks.release(1, "evt-1", 1, claim.token, Failure(NOW, "https://hooks.example/down", "HTTP 503"))

    week, month, year = board(days=7), board(days=30), board(days=365)
    assert [len(b.series) for b in (week, month, year)] == [7, 30, 365]
    assert week.series[-1].day == TODAY and week.series[-1].payments == 1
    assert (week.range_totals.payments, month.range_totals.payments, year.range_totals.payments) == (2, 3, 4)
    assert [(p.package_id, p.count) for p in year.top_packages] == [(11, 4), (10, 4)]
    assert [p.id for p in week.recent_payments] == [4, 3, 2, 1]
    assert (week.months.so_far.payments, week.months.last_in_full.payments) == (2, 1)
    assert [(f.event_id, f.error) for f in week.failed_deliveries] == [("evt-1", "HTTP 503")]
    assert not week.more_failed_deliveries
    assert week.currency == "USD"
    with pytest.raises(Invalid):
        board(days=14)


def test_an_owner_sees_nothing_of_another_store(demo: DemoStore, other_store: ImportResult) -> None:
    services = get_services()
    with time_machine.travel(NOW, tick=False):
        fulfil(services, order("dash-a1"))
        fulfil(services, order("dash-b1", account=2))
        fulfil(services, order("dash-b2", account=2))
    webhooks = WebhookRepository(services.table, services.secrets)
    claim = webhooks.claim(2, "evt-b", "payment.completed", 1, timedelta(seconds=30), NOW)
    webhooks.release(2, "evt-b", 1, claim.token, Failure(NOW, "https://hooks.example/b", "timeout"))
    mine, theirs = board(1), board(2)
    assert (mine.range_totals.payments, theirs.range_totals.payments) == (1, 2)
    assert [p.account_id for p in mine.recent_payments] == [1]
    assert mine.failed_deliveries == [] and len(theirs.failed_deliveries) == 1
    assert theirs.store_name == "Other Craft" != mine.store_name


def test_a_fulfilment_resumed_after_a_crash_between_command_chunks_counts_once(
    demo: DemoStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from webstore.payments import recording

    services = get_services()
    big = Order(
        account_id=1,
        idempotency_key="dash-big",
        username="Steve",
        lines=[OrderLine(package_id=20, quantity=80, paid_price=Decimal("159.20"))],
        price_paid=Decimal("159.20"),
        currency="USD",
    )
    real = recording.run_pending_chunks

    def crash_before_the_remaining_chunks(*_: object) -> None:
        monkeypatch.setattr(recording, "run_pending_chunks", real)  # only the first time
        raise RuntimeError("instance died after the payment's transaction")

    monkeypatch.setattr(recording, "run_pending_chunks", crash_before_the_remaining_chunks)
    with time_machine.travel(NOW, tick=False):
        with pytest.raises(RuntimeError):
            fulfil(services, big)
        payment = fulfil(services, big)  # the payment source retries: the rest of the chunks
        assert len(payment.plans["purchase"]) >= 2
        # A status and owner change at once: the change's largest transaction still commits.
        changes.change_payment(services, 1, payment.transaction_id, "chargeback", "Alex")
    figures = day(TODAY)
    assert (figures.payments, figures.packages[20].count, figures.revenue["USD"]) == (
        1,
        80,
        Decimal("159.20"),
    )
    assert (figures.chargebacks, figures.charged_back["USD"]) == (1, Decimal("159.20"))
