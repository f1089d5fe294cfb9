""" "Your subscription renews on …" through the real clock (`run_due`) and the real mail consumer
(moto SES): one notice N days before each renewal, none twice, none for a player who gave no
address, none once a cancellation was requested."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine

from scripts import backfill_renewal_notices
from tests.integration.subscriptions.support import run
from tests.support.cancellation import buy_subscription
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore.event_types import RENEWAL_UPCOMING, EventType
from webstore.recurring import SCHEDULE_SHARDS
from webstore.repo import Transaction, renewal_notices
from webstore.repo.audit_log import Audit
from webstore.repo.mail import MailRepository, MailSettings
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.repo.renewal_notices import due_notices
from webstore.repo.schedule import ScheduleRepository
from webstore.services import get_services
from webstore.subscriptions.notices import backfill_notices
from webstore.subscriptions.processor import OutcomeKind, backlog

from .conftest import MailQueue, published

START = datetime(2026, 6, 1, 12, tzinfo=UTC)
RENEWAL = datetime(2026, 7, 1, 12, tzinfo=UTC)
SECOND_RENEWAL = datetime(2026, 8, 1, 12, tzinfo=UTC)
EMAIL = "steve@example.com"

Sent = Callable[[], list[Any]]


def notices() -> list[Any]:
    return published(RENEWAL_UPCOMING)


def test_one_notice_three_days_before_each_renewal_then_mailed_once(
    invoke: Invoke, demo: DemoStore, ses: Sent, mail_queue: MailQueue
) -> None:
    with time_machine.travel(START, tick=False) as traveller:
        bought = buy_subscription(invoke, demo, email=EMAIL)
        # The item is not on the renewal schedule: its backlog and alarm never count it.
        assert backlog(get_services(), RENEWAL - timedelta(days=1)).count == 0

        report = run(START + timedelta(hours=1))  # the first item moves to three days before
        assert report.notices.sent == [] and notices() == []
        assert run(RENEWAL - timedelta(days=3, minutes=1)).notices.sent == []

        at = RENEWAL - timedelta(days=3) + timedelta(minutes=1)
        traveller.move_to(at)
        report = run(at)
        assert report.notices.sent == [bought.reference]
        assert report.summary().endswith("; 1 renewal notice(s)")
        assert report.outcomes == []  # the renewal schedule saw nothing
        [event] = notices()
        assert event.endpoints == ()  # no webhook endpoint receives it
        assert event.subject["reference"] == bought.reference

        assert run(at + timedelta(hours=1)).notices.sent == []  # a later run: nothing more
        assert run(RENEWAL - timedelta(seconds=1)).notices.sent == []
        assert len(notices()) == 1

        assert mail_queue.deliver(notices()) == {"batchItemFailures": []}
        assert mail_queue.deliver(notices()) == {"batchItemFailures": []}  # redelivered
        [message] = ses()
        store_name = demo_store_name(demo)
        assert message.subject == f"Your {store_name} subscription renews soon"
        assert message.destinations["ToAddresses"] == [EMAIL]
        assert "renews on 1 July 2026" in message.body
        assert "https://shop.test/subscriptions/" in message.body  # the manage link
        [record] = [r for r in MailRepository(demo.table).log(1) if r.kind == "renewal_notice"]
        assert record.status == "sent"

        # The renewal, then the next period's notice: one per renewal.
        traveller.move_to(RENEWAL + timedelta(seconds=30))
        assert [o.kind for o in run(RENEWAL + timedelta(seconds=30)).outcomes] == [
            OutcomeKind.RENEWAL_CHARGED
        ]
        assert run(RENEWAL + timedelta(hours=2)).notices.sent == []
        at = SECOND_RENEWAL - timedelta(days=2)
        traveller.move_to(at)
        assert run(at).notices.sent == [bought.reference]
        first, second = notices()
        assert first.id != second.id


def test_overlapping_runs_write_one_notice(invoke: Invoke, demo: DemoStore, ses: Sent) -> None:
    at = RENEWAL - timedelta(days=2)
    with time_machine.travel(START, tick=False) as traveller:
        bought = buy_subscription(invoke, demo, email=EMAIL)
        run(START + timedelta(hours=1))
        traveller.move_to(at)
        [due] = [d for shard in range(SCHEDULE_SHARDS) for d in due_notices(demo.table, shard, at)]
        # Another run holds the item: this one leaves it.
        assert ScheduleRepository(demo.table).claim(due.key, "other-run", at + timedelta(minutes=5), at)
        assert run(at).notices.sent == []
        assert notices() == []
        # Its claim lapsed (that run died): the next run writes the notice, once.
        traveller.move_to(at + timedelta(minutes=6))
        assert run(at).notices.sent == [bought.reference]
        assert run(at).notices.sent == []
        assert len(notices()) == 1


def test_no_notice_without_an_address_or_after_a_cancellation_request(
    invoke: Invoke, demo: DemoStore, ses: Sent
) -> None:
    with time_machine.travel(START, tick=False) as traveller:
        buy_subscription(invoke, demo)  # no e-mail given
        cancelled = buy_subscription(invoke, demo, username="Steve", email=EMAIL)
        RecurringPaymentRepository(demo.table).request_cancel(1, cancelled.reference, START, "test")
        at = RENEWAL - timedelta(days=1)
        traveller.move_to(at)

        assert run(at).notices.sent == []
        assert notices() == []


def test_the_stores_notice_days_are_used(invoke: Invoke, demo: DemoStore, ses: Sent) -> None:
    audit = Audit("staff:owner@example.com", "mail.settings", "test", START)
    MailRepository(demo.table).save_settings(1, MailSettings(renewal_notice_days=7), audit)
    with time_machine.travel(START, tick=False) as traveller:
        buy_subscription(invoke, demo, email=EMAIL)
        run(START + timedelta(hours=1))
        at = RENEWAL - timedelta(days=7) + timedelta(minutes=1)
        traveller.move_to(at)
        assert len(run(at).notices.sent) == 1
    assert EventType.RECURRING_RENEWED not in [e.type for e in notices()]


def demo_store_name(demo: DemoStore) -> str:
    from webstore.repo.store import StoreRepository

    return StoreRepository(demo.table).store(1).name


def test_the_backfill_gives_older_subscriptions_their_notice_once(
    invoke: Invoke, demo: DemoStore, ses: Sent, capsys: pytest.CaptureFixture[str]
) -> None:
    with time_machine.travel(START, tick=False) as traveller:
        older = buy_subscription(invoke, demo, email=EMAIL)
        noticed = buy_subscription(invoke, demo, username="Steve", email=EMAIL)
        # `older` as a subscription started before notices existed: no item.
        schedule = ScheduleRepository(demo.table)
        for shard in range(SCHEDULE_SHARDS):
            for due in due_notices(demo.table, shard, RENEWAL):
                if due.item.reference == older.reference:
                    tx = Transaction(demo.table)
                    schedule.add_done(tx, due.key)
                    tx.commit()
        assert older.reference not in renewal_notices.noticed(demo.table, 1)

        assert backfill_renewal_notices.main(["--table", "t", "--account", "1"], demo.table, START) == 0
        assert "account 1: 1 subscriptions given" in capsys.readouterr().out
        assert backfill_notices(demo.table, 1, START) == 0  # a second run adds nothing
        assert {older.reference, noticed.reference} <= renewal_notices.noticed(demo.table, 1)

        at = RENEWAL - timedelta(days=3) + timedelta(minutes=1)
        traveller.move_to(at)
        assert sorted(run(at).notices.sent) == sorted([older.reference, noticed.reference])
        assert run(at + timedelta(hours=1)).notices.sent == []


def test_a_cancel_undone_after_the_notice_is_not_told_again(
    invoke: Invoke, demo: DemoStore, ses: Sent
) -> None:
    """The notice was sent for this renewal; cancelling and undoing it changes nothing about it."""
    with time_machine.travel(START, tick=False) as traveller:
        bought = buy_subscription(invoke, demo, email=EMAIL)
        run(START + timedelta(hours=1))
        at = RENEWAL - timedelta(days=3) + timedelta(minutes=1)
        traveller.move_to(at)
        assert run(at).notices.sent == [bought.reference]
        repo = RecurringPaymentRepository(demo.table)
        repo.request_cancel(1, bought.reference, at, "test")
        repo.abort_cancel(1, bought.reference, at + timedelta(hours=1))
        later = at + timedelta(days=1)
        traveller.move_to(later)

        assert run(later).notices.sent == []
        assert len(notices()) == 1
