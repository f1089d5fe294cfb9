"""Subscriptions over time through the real handlers (moto), time moved with time-machine
(issue 12): renewal at its date, declined renewals retried then expired, a pending downgrade
applied at renewal, duplicate runs and crashes between claim and act."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
import time_machine

from tests.integration.events.conftest import SECRET
from tests.integration.events.test_verifiers_both_ways import node_verifies
from tests.integration.operator.test_recurring_payments import get as get_recurring
from tests.integration.storefront.test_checkout import payments
from tests.integration.storefront.test_tiers import change, ranks, tiered
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore.checkout.gateway import SANDBOX_RENEWAL_DECLINED_CARD, SandboxGateway
from webstore.events import DomainEvent
from webstore.players import TierStatus
from webstore.recurring import RecurringStatus
from webstore.repo.player_tiers import PlayerTierRepository
from webstore.repo.users import UserRepository
from webstore.services import get_services
from webstore.subscriptions import processor
from webstore.subscriptions.processor import OutcomeKind
from webstore.webhooks.envelope import encode_body, envelope, signature, verify

from .support import (
    ACCOUNT,
    another_writer_takes_command_ids,
    buy,
    offline_commands,
    pay_form,
    queued_command_ids,
    recurring,
    run,
)

START = datetime(2026, 6, 1, 12, tzinfo=UTC)
RENEWAL = datetime(2026, 7, 1, 12, tzinfo=UTC)
VIP_RENEWAL_COMMAND = "say {username} renewed VIP"


def types(events: list[DomainEvent]) -> list[str]:
    return [e.type for e in events]


def steve_id() -> int:
    return UserRepository(get_services().table).ensure("Steve").id


def steve_tier(invoke: Invoke, demo: DemoStore) -> dict[str, Any]:
    """Steve's tier in Ranks as getUserTieredCategories shows it."""
    tier: dict[str, Any] = ranks(tiered(invoke, demo, str(steve_id())))["active_tier"]
    return tier


def test_the_pay_form_asks_consent_for_a_subscription_and_refuses_without_it(
    demo: DemoStore, invoke: Invoke
) -> None:
    from tests.integration.storefront.test_pay_prices_now import basket_with

    ident = basket_with(invoke, demo, {"package_id": 1})
    refused = pay_form(invoke, ident, consent=False)
    assert refused.status == 422
    assert "tick the box" in refused.body and "VIP: $4.99 USD every month" in refused.body
    assert payments(invoke, demo) == []
    assert pay_form(invoke, ident).status == 303


def test_a_subscription_bought_at_checkout_renews_at_its_date(
    demo: DemoStore, invoke: Invoke, published: list[DomainEvent]
) -> None:
    with time_machine.travel(START, tick=False) as traveller:
        first = buy(invoke, demo, {"package_id": 1})
        reference = first["txn_id"]
        standing = recurring(reference)
        assert standing.next_payment_at == RENEWAL and standing.saved_method
        assert [e.subject["reference"] for e in published if e.type.startswith("recurring")] == [reference]
        assert run(RENEWAL - timedelta(seconds=1)).outcomes == []  # not due yet

        published.clear()
        traveller.move_to(RENEWAL + timedelta(seconds=30))
        report = run(RENEWAL + timedelta(seconds=30))
        assert [o.kind for o in report.outcomes] == [OutcomeKind.RENEWAL_CHARGED]
        assert "renewal charged" in report.outcomes[0].describe() and "1 renewal charged" in report.summary()

        second = payments(invoke, demo)[0]
        assert second["txn_id"] != reference and second["amount"] == "4.99"
        assert types(published) == ["payment.completed", "recurring-payment.renewed"]
        completed, renewed = published
        assert completed.subject["recurring_payment_reference"] == reference
        assert completed.subject["payment_sequence"] == "recurring"
        assert renewed.subject["reference"] == reference
        assert renewed.subject["next_payment_at"] == "2026-08-01T12:00:00+00:00"
        assert renewed.subject["initial_payment"]["transaction_id"] == reference
        assert renewed.subject["last_payment"]["transaction_id"] == second["txn_id"]
        assert offline_commands(invoke, demo).count(VIP_RENEWAL_COMMAND) == 1
        for event in published:  # receivers verify what they get, raw and re-serialised by JS
            body = encode_body(envelope(event))
            assert verify(SECRET, body, signature(SECRET, body))
            if shutil.which("node"):
                assert node_verifies(body, signature(SECRET, body)) == {"raw": True, "reserialised": True}

        after = recurring(reference)
        assert (after.payment_sequence, after.fail_count, after.status) == (2, 0, RecurringStatus.ACTIVE)
        assert (after.payment_history, after.payment_count) == ([reference, second["txn_id"]], 2)
        operator_view = get_recurring(invoke, demo, reference)
        assert operator_view.status == 200, operator_view.body
        assert operator_view.json()["links"]["payment_history"] == [  # oldest first
            f"https://plugin.test/payments/{reference}",
            f"https://plugin.test/payments/{second['txn_id']}",
        ]
        assert steve_tier(invoke, demo)["next_payment_date"].startswith("2026-08-01")

        published.clear()
        assert run(RENEWAL + timedelta(seconds=30)).outcomes == []  # the same instant again: nothing
        assert published == [] and len(payments(invoke, demo)) == 2
        assert offline_commands(invoke, demo).count(VIP_RENEWAL_COMMAND) == 1


def test_a_declined_renewal_is_retried_on_schedule_then_expires(
    demo: DemoStore, invoke: Invoke, published: list[DomainEvent]
) -> None:
    with time_machine.travel(START, tick=False) as traveller:
        reference = buy(invoke, demo, {"package_id": 1}, card=SANDBOX_RENEWAL_DECLINED_CARD)["txn_id"]
        published.clear()
        attempts = [RENEWAL, *(RENEWAL + timedelta(days=d) for d in (1, 3, 5))]
        for number, moment in enumerate(attempts[:3], start=1):
            traveller.move_to(moment)
            [outcome] = run(moment).outcomes
            assert outcome.kind is OutcomeKind.RENEWAL_DECLINED
            standing = recurring(reference)
            assert (standing.status, standing.fail_count) == (RecurringStatus.PAST_DUE, number)
            assert standing.retry_at == attempts[number]
            assert steve_tier(invoke, demo)["status"] == {"id": 1, "description": "active"}  # perk stays
            assert run(moment + timedelta(hours=12)).outcomes == []  # nothing until the retry
        traveller.move_to(attempts[3])
        [outcome] = run(attempts[3]).outcomes
        assert outcome.kind is OutcomeKind.EXPIRED
        ended = recurring(reference)
        assert (ended.status, ended.fail_count, ended.schedule_sk) == (RecurringStatus.EXPIRED, 4, None)
        assert "lp user {username} parent remove vip" in offline_commands(invoke, demo)
        assert types(published) == ["recurring-payment.status-changed"] * 4 + ["recurring-payment.ended"]
        assert [e.subject["fail_count"] for e in published] == [1, 2, 3, 4, 4]
        assert published[-1].subject["status"] == {"id": 4, "description": "Expired"}
        assert len(payments(invoke, demo)) == 1
        [tier] = PlayerTierRepository(get_services().table).of_player(ACCOUNT, steve_id())
        assert (tier.active, tier.status_id) == (False, TierStatus.EXPIRED)
        assert run(attempts[3] + timedelta(days=60)).outcomes == []


def test_the_retry_schedule_is_the_stores_setting(demo: DemoStore, invoke: Invoke) -> None:
    from webstore.repo.store import StoreRepository

    store = StoreRepository(get_services().table)
    with time_machine.travel(START, tick=False) as traveller:
        reference = buy(invoke, demo, {"package_id": 1}, card=SANDBOX_RENEWAL_DECLINED_CARD)["txn_id"]
        view = store.operator_view(ACCOUNT)
        item = {"PK": "STORE#1", "SK": "5STORE"}
        get_services().table.update(item, "SET renewal_retry_days = :d", values={":d": [2]})
        assert view.store.renewal_retry_days == [1, 3, 5]
        traveller.move_to(RENEWAL)
        run(RENEWAL)
        assert recurring(reference).retry_at == RENEWAL + timedelta(days=2)
        traveller.move_to(RENEWAL + timedelta(days=2))
        assert [o.kind for o in run(RENEWAL + timedelta(days=2)).outcomes] == [OutcomeKind.EXPIRED]


def test_a_pending_downgrade_is_applied_at_renewal(
    demo: DemoStore, invoke: Invoke, published: list[DomainEvent]
) -> None:
    with time_machine.travel(START, tick=False) as traveller:
        reference = buy(invoke, demo, {"package_id": 2})["txn_id"]  # MVP 9.99
        tier = steve_tier(invoke, demo)
        changed = change(invoke, demo, str(tier["id"]), 1)
        assert changed.status == 200, changed.body
        assert steve_tier(invoke, demo)["status"] == {"id": 2, "description": "pending downgrade"}
        traveller.move_to(RENEWAL)
        [outcome] = run(RENEWAL).outcomes
        assert outcome.kind is OutcomeKind.RENEWAL_CHARGED
        renewal = payments(invoke, demo)[0]
        assert renewal["amount"] == "4.99" and [p["name"] for p in renewal["packages"]] == ["VIP"]
        tier = steve_tier(invoke, demo)
        assert tier["status"] == {"id": 1, "description": "active"}
        assert tier["package"]["id"] == 1 and tier["pending_downgrade_package"] is None
        standing = recurring(reference)
        assert standing.package_ids == [1] and standing.amount == Decimal("4.99")
        assert VIP_RENEWAL_COMMAND in offline_commands(invoke, demo)


class _Crash(BaseException):
    """The process dies (not an error the processor handles: nothing is released)."""


def test_a_crash_between_claim_and_act_is_finished_by_the_next_run(
    demo: DemoStore, invoke: Invoke, monkeypatch: pytest.MonkeyPatch, published: list[DomainEvent]
) -> None:
    with time_machine.travel(START, tick=False) as traveller:
        reference = buy(invoke, demo, {"package_id": 1})["txn_id"]
        traveller.move_to(RENEWAL)

        def crash(self: SandboxGateway, request: object) -> None:
            raise _Crash

        with monkeypatch.context() as patch:
            patch.setattr(SandboxGateway, "charge_saved", crash)
            with pytest.raises(_Crash):
                run(RENEWAL)
        assert run(RENEWAL).outcomes[0].kind is OutcomeKind.BUSY  # the dead run's claim holds
        assert len(payments(invoke, demo)) == 1
        traveller.shift(processor.CLAIM_SECONDS + 1)  # the claim expires
        published.clear()
        [outcome] = run(RENEWAL).outcomes
        assert outcome.kind is OutcomeKind.RENEWAL_CHARGED
        assert len(payments(invoke, demo)) == 2 and recurring(reference).payment_sequence == 2
        assert types(published) == ["payment.completed", "recurring-payment.renewed"]


def test_a_crash_after_the_charge_never_charges_or_records_twice(
    demo: DemoStore, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run dies after the gateway charged but before the renewal was recorded: the next run
    charges again under the same idempotency key (the processor's one charge) and records once."""
    keys: list[str] = []
    original = SandboxGateway.charge_saved

    def charge_then_die(self: SandboxGateway, request: object) -> object:
        result = original(self, request)  # type: ignore[arg-type]
        keys.append(request.idempotency_key)  # type: ignore[attr-defined]
        if len(keys) == 1:
            raise _Crash
        return result

    with time_machine.travel(START, tick=False) as traveller:
        buy(invoke, demo, {"package_id": 1})
        traveller.move_to(RENEWAL)
        monkeypatch.setattr(SandboxGateway, "charge_saved", charge_then_die)
        with pytest.raises(_Crash):
            run(RENEWAL)
        traveller.shift(processor.CLAIM_SECONDS + 1)
        assert [o.kind for o in run(RENEWAL).outcomes] == [OutcomeKind.RENEWAL_CHARGED]
        assert run(RENEWAL).outcomes == []
    assert len(keys) == 2 and keys[0] == keys[1]
    assert len(payments(invoke, demo)) == 2


def test_an_error_releases_the_item_for_the_next_run(
    demo: DemoStore, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    with time_machine.travel(START, tick=False) as traveller:
        buy(invoke, demo, {"package_id": 1})
        traveller.move_to(RENEWAL)

        def fail(self: SandboxGateway, request: object) -> None:
            raise TimeoutError("gateway timed out")

        with monkeypatch.context() as patch:
            patch.setattr(SandboxGateway, "charge_saved", fail)
            [outcome] = run(RENEWAL).outcomes
        assert outcome.kind is OutcomeKind.FAILED and "gateway timed out" in outcome.describe()
        assert [o.kind for o in run(RENEWAL).outcomes] == [OutcomeKind.RENEWAL_CHARGED]


def test_months_pass_in_one_run_as_of_a_later_instant(demo: DemoStore, invoke: Invoke) -> None:
    with time_machine.travel(START, tick=False) as traveller:
        reference = buy(invoke, demo, {"package_id": 1})["txn_id"]
        later = datetime(2026, 9, 1, 13, tzinfo=UTC)
        traveller.move_to(later)
        report = run(later)
        assert [o.kind for o in report.outcomes] == [OutcomeKind.RENEWAL_CHARGED] * 3
        assert recurring(reference).next_payment_at == datetime(2026, 10, 1, 12, tzinfo=UTC)
        assert offline_commands(invoke, demo).count(VIP_RENEWAL_COMMAND) == 3


def test_concurrent_runs_charge_and_record_a_renewal_once(
    demo: DemoStore, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.threads import in_threads
    from webstore.subscriptions.processor import RunReport

    charged: list[str] = []
    original = SandboxGateway.charge_saved

    def counting(self: SandboxGateway, request: Any) -> Any:
        charged.append(request.idempotency_key)
        return original(self, request)

    monkeypatch.setattr(SandboxGateway, "charge_saved", counting)
    reports: list[RunReport] = []
    with time_machine.travel(START, tick=False) as traveller:
        buy(invoke, demo, {"package_id": 1})
        traveller.move_to(RENEWAL)
        in_threads(lambda: reports.append(run(RENEWAL)), [() for _ in range(4)])
        kinds = [o.kind for report in reports for o in report.outcomes]
        assert kinds.count(OutcomeKind.RENEWAL_CHARGED) == 1
        assert set(kinds) <= {OutcomeKind.RENEWAL_CHARGED, OutcomeKind.BUSY}
        assert len(charged) == 1 and len(payments(invoke, demo)) == 2
        assert offline_commands(invoke, demo).count(VIP_RENEWAL_COMMAND) == 1


def test_a_renewal_takes_its_ids_in_its_transaction_and_retries_when_overtaken(
    demo: DemoStore, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The renewal's payment and command ids come from the sequences read with its effects (no
    separate counter update); a writer that took ids meanwhile makes its transaction fail on the
    sequences (nothing written), and the renewal reads again: no id twice, the cycle recorded once."""
    with time_machine.travel(START, tick=False) as traveller:
        first = buy(invoke, demo, {"package_id": 1})
        taken: list[int] = []
        reads: list[int] = []
        another_writer_takes_command_ids(monkeypatch, taken, reads)
        traveller.move_to(RENEWAL)
        [outcome] = run(RENEWAL).outcomes
        assert outcome.kind is OutcomeKind.RENEWAL_CHARGED
        assert taken and len(reads) == 2  # overtaken once, read again, committed
        [renewal_command] = queued_command_ids(invoke, demo, VIP_RENEWAL_COMMAND)
        assert renewal_command > max(taken)  # after the ids the other writer took, not the same
        second, bought = payments(invoke, demo)
        assert bought["txn_id"] == first["txn_id"] and second["id"] == bought["id"] + 1  # dense
