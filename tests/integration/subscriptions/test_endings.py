"""How subscriptions and timed packages end (issue 12): a refund or chargeback of a subscription
payment ends it at once; a timed package expires, and a second purchase while it runs extends
the one timer; a manual subscription payment (nothing saved to charge) expires at period end."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
import time_machine

from functions.operator import get_offline_commands, update_payment
from tests.integration.operator.support import manual_payment, secret_headers
from tests.integration.storefront.test_checkout import payments
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore.catalog import Package
from webstore.events import DomainEvent
from webstore.players import TierStatus
from webstore.recurring import RecurringStatus, timed_reference
from webstore.repo import Transaction
from webstore.repo.player_tiers import PlayerTierRepository
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.repo.schedule import ScheduleRepository
from webstore.repo.sequences import IdAllocation, SequenceRepository
from webstore.repo.store import StoreRepository
from webstore.repo.users import UserRepository
from webstore.services import get_services
from webstore.subscriptions.processor import OutcomeKind

from .support import ACCOUNT, buy, offline_commands, recurring, run

START = datetime(2026, 6, 1, 12, tzinfo=UTC)
FLY_ON, FLY_OFF = "fly {username} on", "fly {username} off"


def add_timed_package(days: int = 7) -> None:
    """A timed one-off package (Fly for `days` days) in the demo store's Items category."""
    package = Package.model_validate(
        {
            "id": 30,
            "category_id": 2,
            "name": f"Fly ({days} days)",
            "price": "1.00",
            "expiry_length": days,
            "expiry_period": "day",
            "commands": [
                {"server_id": 1, "command": FLY_ON},
                {"server_id": 1, "command": FLY_OFF, "trigger": "expiry"},
            ],
            "created_at": START,
            "updated_at": START,
        }
    )
    store = StoreRepository(get_services().table)
    get_services().table.put(store.entity_item(ACCOUNT, package))


def set_status(invoke: Invoke, demo: DemoStore, txn: str, status: str) -> None:
    answer = invoke(
        update_payment.handler,
        "PUT",
        f"/payments/{txn}",
        headers=secret_headers(demo.server_secret),
        body={"status": status},
    )
    assert answer.status == 200, answer.body


def steve_id() -> int:
    return UserRepository(get_services().table).ensure("Steve").id


def test_a_refund_of_a_subscription_payment_ends_it_at_once(
    demo: DemoStore, invoke: Invoke, published: list[DomainEvent]
) -> None:
    with time_machine.travel(START, tick=False) as traveller:
        reference = buy(invoke, demo, {"package_id": 1})["txn_id"]
        traveller.move_to(START + timedelta(days=40))
        assert [o.kind for o in run(START + timedelta(days=40)).outcomes] == [OutcomeKind.RENEWAL_CHARGED]
        renewal = payments(invoke, demo)[0]["txn_id"]
        published.clear()
        set_status(invoke, demo, renewal, "refund")  # the renewal payment is refunded

        ended = recurring(reference)
        assert (ended.status, ended.schedule_sk) == (RecurringStatus.CANCELLED, None)
        assert ended.cancel_reason == "A payment of the subscription was refunded"
        [tier] = PlayerTierRepository(get_services().table).of_player(ACCOUNT, steve_id())
        assert (tier.active, tier.status_id) == (False, TierStatus.CANCELLED)
        commands = offline_commands(invoke, demo)
        assert commands.count("lp user {username} parent remove vip") == 2  # refund + expiry
        assert [e.type for e in published] == ["payment.refunded", "recurring-payment.ended"]
        subject = published[1].subject
        assert subject["status"] == {"id": 3, "description": "Cancelled"}
        assert subject["initial_payment"]["transaction_id"] == reference
        assert subject["last_payment"]["transaction_id"] == renewal
        assert subject["next_payment_at"] is None

        far = START + timedelta(days=400)  # no later renewal charges anyone
        traveller.move_to(far)
        assert run(far).outcomes == []
        assert len(payments(invoke, demo)) == 2
        assert ScheduleRepository(get_services().table).backlog(far).count == 0


def test_a_chargeback_ends_it_too_and_winning_it_back_does_not_restart_it(
    demo: DemoStore, invoke: Invoke, published: list[DomainEvent]
) -> None:
    with time_machine.travel(START, tick=False):
        reference = buy(invoke, demo, {"package_id": 1})["txn_id"]
        set_status(invoke, demo, reference, "chargeback")
        assert recurring(reference).status is RecurringStatus.CANCELLED
        set_status(invoke, demo, reference, "complete")
        assert recurring(reference).status is RecurringStatus.CANCELLED
        assert [e.type for e in published if e.type.startswith("recurring")] == [
            "recurring-payment.started",
            "recurring-payment.ended",
        ]


def test_a_manual_subscription_payment_expires_at_period_end(
    demo: DemoStore, invoke: Invoke, published: list[DomainEvent]
) -> None:
    """createPayment saves no payment method: nothing to renew with, so the period's end ends it."""
    with time_machine.travel(START, tick=False) as traveller:
        payment = manual_payment(invoke, demo.server_secret, ign="Steve", packages=[{"id": 1}])
        standing = recurring(payment["txn_id"])
        assert standing.saved_method == "" and standing.next_payment_at == datetime(
            2026, 7, 1, 12, tzinfo=UTC
        )
        traveller.move_to(datetime(2026, 7, 1, 12, tzinfo=UTC))
        [outcome] = run(datetime(2026, 7, 1, 12, tzinfo=UTC)).outcomes
        assert outcome.kind is OutcomeKind.EXPIRED
        assert recurring(payment["txn_id"]).cancel_reason == "No saved payment method to renew with"
        assert "lp user {username} parent remove vip" in offline_commands(invoke, demo)


def test_a_timed_package_expires_and_a_second_purchase_extends_it(
    demo: DemoStore, invoke: Invoke, published: list[DomainEvent]
) -> None:
    add_timed_package(days=7)
    repo = RecurringPaymentRepository(get_services().table)
    with time_machine.travel(START, tick=False) as traveller:
        buy(invoke, demo, {"package_id": 30})
        timer = repo.get_timed(ACCOUNT, steve_id(), 30)
        assert timer is not None and timer.expires_at == START + timedelta(days=7)

        traveller.move_to(START + timedelta(days=3))
        buy(invoke, demo, {"package_id": 30})  # while it runs: one timer, moved
        timer = repo.get_timed(ACCOUNT, steve_id(), 30)
        assert timer is not None and timer.expires_at == START + timedelta(days=14)
        schedule = ScheduleRepository(get_services().table)
        assert schedule.backlog(START + timedelta(days=30)).count == 1

        traveller.move_to(START + timedelta(days=7, hours=1))
        assert run(START + timedelta(days=7, hours=1)).outcomes == []  # the first end moved
        assert FLY_OFF not in offline_commands(invoke, demo)

        traveller.move_to(START + timedelta(days=14))
        [outcome] = run(START + timedelta(days=14)).outcomes
        assert outcome.kind is OutcomeKind.TIMED_EXPIRY and outcome.reference == timed_reference(
            steve_id(), 30
        )
        commands = offline_commands(invoke, demo)
        assert commands.count(FLY_OFF) == 1 and commands.count(FLY_ON) == 2
        assert run(START + timedelta(days=14)).outcomes == []
        assert published and all(not e.type.startswith("recurring") for e in published)

        traveller.move_to(START + timedelta(days=20))  # bought again after it ran out: a new period
        buy(invoke, demo, {"package_id": 30, "quantity": 2})
        timer = repo.get_timed(ACCOUNT, steve_id(), 30)
        assert timer is not None and not timer.expired
        assert timer.expires_at == START + timedelta(days=34)  # two units: two periods


def test_renewals_charge_list_prices_not_the_first_payments_discount(demo: DemoStore, invoke: Invoke) -> None:
    from functions.storefront import apply_coupon
    from tests.integration.storefront.test_pay_prices_now import basket_with

    from .support import pay_form

    with time_machine.travel(START, tick=False):
        ident = basket_with(invoke, demo, {"package_id": 1})
        applied = invoke(
            apply_coupon.handler,
            "POST",
            f"/api/accounts/{demo.token}/baskets/{ident}/coupons",
            body={"coupon_code": "WELCOME10"},
        )
        assert applied.status == 200, applied.body
        assert pay_form(invoke, ident).status == 303
        first = payments(invoke, demo)[0]
        assert Decimal(first["amount"]) < Decimal("4.99")
        assert recurring(first["txn_id"]).amount == Decimal("4.99")


def test_a_renewal_charged_while_a_refund_ends_the_subscription_is_given_back(
    demo: DemoStore, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refund lands between the renewal's charge and its recording: the renewal is not
    recorded, and its charge goes back through the gateway."""
    from webstore.checkout.gateway import SandboxGateway

    refunds: list[tuple[str, Decimal]] = []
    charge = SandboxGateway.charge_saved
    with time_machine.travel(START, tick=False) as traveller:
        reference = buy(invoke, demo, {"package_id": 1})["txn_id"]

        def charge_then_refund_elsewhere(self: SandboxGateway, request: Any) -> Any:
            result = charge(self, request)
            set_status(invoke, demo, reference, "refund")  # the operator, at the same moment
            return result

        monkeypatch.setattr(SandboxGateway, "charge_saved", charge_then_refund_elsewhere)
        monkeypatch.setattr(
            SandboxGateway, "refund", lambda self, ref, amount: refunds.append((ref, amount)) or True
        )
        traveller.move_to(datetime(2026, 7, 1, 12, tzinfo=UTC))
        [outcome] = run(datetime(2026, 7, 1, 12, tzinfo=UTC)).outcomes
        assert outcome.kind is OutcomeKind.FAILED and "charge refunded=True" in outcome.detail
        assert refunds == [(f"sandbox-renewal-{reference}-2-1", Decimal("4.99"))]
        assert len(payments(invoke, demo)) == 1
        assert recurring(reference).status is RecurringStatus.CANCELLED
        assert run(datetime(2026, 7, 1, 12, tzinfo=UTC)).outcomes == []  # its item went with the refund


def _another_writer_takes_command_ids(monkeypatch: pytest.MonkeyPatch, taken: list[int]) -> None:
    """The first read of the sequences is overtaken: another write takes 3 command ids (as a
    payment's transaction does) after it, so the processor's transaction loses them."""
    original = SequenceRepository.read

    def read_then_overtaken(self: SequenceRepository, account_id: int) -> IdAllocation:
        found = original(self, account_id)
        if not taken:
            other = original(self, account_id)
            taken.extend(other.take("command", 3))
            tx = Transaction(get_services().table)
            other.add_to(tx)
            tx.commit()
        return found

    monkeypatch.setattr(SequenceRepository, "read", read_then_overtaken)


def _queued_command_ids(invoke: Invoke, demo: DemoStore) -> list[int]:
    response = invoke(
        get_offline_commands.handler,
        "GET",
        "/queue/offline-commands",
        headers=secret_headers(demo.server_secret),
    )
    return [int(c["id"]) for c in response.json()["commands"]]


def test_an_ending_takes_its_command_ids_in_its_transaction_and_retries_when_overtaken(
    demo: DemoStore, invoke: Invoke, monkeypatch: pytest.MonkeyPatch, published: list[DomainEvent]
) -> None:
    """The expiry commands' ids come from the sequences read beside the ending's other reads; a
    writer that took ids meanwhile makes the transaction fail on the sequences (nothing
    written), and the ending reads them again: no id twice, none lost to a separate update."""
    with time_machine.travel(START, tick=False) as traveller:
        manual_payment(invoke, demo.server_secret, ign="Steve", packages=[{"id": 1}])
        before = set(_queued_command_ids(invoke, demo))
        taken: list[int] = []
        _another_writer_takes_command_ids(monkeypatch, taken)
        traveller.move_to(datetime(2026, 7, 1, 12, tzinfo=UTC))
        [outcome] = run(datetime(2026, 7, 1, 12, tzinfo=UTC)).outcomes
        assert outcome.kind is OutcomeKind.EXPIRED
        expiry_ids = set(_queued_command_ids(invoke, demo)) - before
        assert expiry_ids and taken
        assert min(expiry_ids) > max(taken)  # after the ids the other writer took, not the same
        assert len(expiry_ids) == len(set(expiry_ids))


def test_a_timed_expiry_takes_its_command_ids_in_its_transaction_and_retries_when_overtaken(
    demo: DemoStore, invoke: Invoke, monkeypatch: pytest.MonkeyPatch, published: list[DomainEvent]
) -> None:
    add_timed_package(days=7)
    with time_machine.travel(START, tick=False) as traveller:
        buy(invoke, demo, {"package_id": 30})
        before = set(_queued_command_ids(invoke, demo))
        taken: list[int] = []
        _another_writer_takes_command_ids(monkeypatch, taken)
        traveller.move_to(START + timedelta(days=7))
        [outcome] = run(START + timedelta(days=7)).outcomes
        assert outcome.kind is OutcomeKind.TIMED_EXPIRY
        expiry_ids = set(_queued_command_ids(invoke, demo)) - before
        assert len(expiry_ids) == 1 and taken and min(expiry_ids) > max(taken)
        assert offline_commands(invoke, demo).count(FLY_OFF) == 1
