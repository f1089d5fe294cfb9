"""PATCH {headless_url}/tiers/{id} to a dearer package: the prorated difference charged
off-session to the saved method once (even under concurrent requests), recorded as a payment,
the tier and the subscription moved, the new package's purchase commands queued; a declined
charge is 402 with nothing changed. Real handlers (moto), time moved by time-machine."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
import time_machine

from functions.storefront import update_tier
from tests.integration.storefront.support import base
from tests.integration.subscriptions.support import another_writer_takes_command_ids
from tests.support.cancellation import Bought, buy_subscription, table_snapshot
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from tests.support.threads import in_threads
from webstore.checkout.gateway import (
    SANDBOX_RENEWAL_DECLINED_CARD,
    ChargeResult,
    OffSessionCharge,
    SandboxGateway,
)
from webstore.event_types import EventType
from webstore.events import DomainEvent
from webstore.players import Tier, TierStatus
from webstore.recurring import RecurringPayment
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.repo.player_tiers import PlayerTierRepository
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.services import local_bus

NOW = datetime(2026, 6, 16, 12, tzinfo=UTC)  # VIP bought; it renews 16 July (30 days)
HALFWAY = NOW + timedelta(days=15)
VIP, MVP = 1, 2


@pytest.fixture
def traveller(demo: DemoStore) -> Iterator[time_machine.Coordinates]:
    with time_machine.travel(NOW, tick=False) as coordinates:
        yield coordinates


@pytest.fixture
def published() -> Iterator[list[DomainEvent]]:
    bus = local_bus()
    bus.published.clear()
    yield bus.published
    bus.published.clear()


@pytest.fixture
def charges(monkeypatch: pytest.MonkeyPatch) -> list[OffSessionCharge]:
    """Every off-session charge the sandbox is asked for (and what it answered)."""
    asked: list[OffSessionCharge] = []
    real = SandboxGateway.charge_saved

    def counting(self: SandboxGateway, request: OffSessionCharge) -> ChargeResult:
        asked.append(request)
        return real(self, request)

    monkeypatch.setattr(SandboxGateway, "charge_saved", counting)
    return asked


def tier_of(demo: DemoStore, bought: Bought) -> Tier:
    recurring = recurring_of(demo, bought)
    [tier_id] = recurring.tier_ids
    tier = PlayerTierRepository(demo.table).get(1, tier_id)
    assert tier is not None
    return tier


def recurring_of(demo: DemoStore, bought: Bought) -> RecurringPayment:
    recurring = RecurringPaymentRepository(demo.table).get(1, bought.reference)
    assert recurring is not None
    return recurring


def patch(invoke: Invoke, demo: DemoStore, tier_id: int, package_id: int) -> Response:
    return invoke(
        update_tier.handler,
        "PATCH",
        f"{base(demo)}/tiers/{tier_id}",
        body={"package_id": package_id},
        headers=demo.basic_auth(),
    )


def upgrade_payments(demo: DemoStore, bought: Bought) -> list[PaymentRecord]:
    found = []
    repository = PaymentRepository(demo.table)
    for item in table_snapshot(demo.table):
        if item.get("entity", {}).get("S") == "payment":
            payment = repository.get(1, int(item["id"]["N"]))
            if payment and payment.transaction_id != bought.reference:
                found.append(payment)
    return found


def queued_for(demo: DemoStore, payment_id: int) -> list[dict[str, Any]]:
    return [
        item
        for item in table_snapshot(demo.table)
        if item.get("entity", {}).get("S") == "command" and int(item["payment_id"]["N"]) == payment_id
    ]


def without_claims(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [i for i in items if not i["SK"]["S"].startswith("UPGRADE#")]


def test_an_upgrade_charges_the_prorated_difference_once_and_moves_the_tier(
    demo: DemoStore,
    invoke: Invoke,
    traveller: time_machine.Coordinates,
    published: list[DomainEvent],
    charges: list[OffSessionCharge],
) -> None:
    bought = buy_subscription(invoke, demo)
    tier = tier_of(demo, bought)
    traveller.move_to(HALFWAY)
    published.clear()

    response = patch(invoke, demo, tier.id, MVP)
    assert response.status == 200, response.body
    assert response.json() == {
        "success": True,
        "message": "Tier successfully upgraded, please allow a few moments for your changes to take effect.",
    }
    [charge] = charges
    assert charge.amount == Decimal("2.50")  # (9.99 - 4.99) for half of the month
    assert charge.saved_method == "sandbox-card"

    [payment] = upgrade_payments(demo, bought)
    assert payment.amount == Decimal("2.50")
    assert payment.recurring_payment_reference == bought.reference
    assert [(line.package_id, line.price) for line in payment.lines] == [(MVP, Decimal("2.50"))]
    moved = PlayerTierRepository(demo.table).get(1, tier.id)
    assert moved is not None
    assert (moved.package_id, moved.status_id) == (MVP, TierStatus.ACTIVE)
    assert moved.next_payment_date == tier.next_payment_date  # the billing period stays
    recurring = recurring_of(demo, bought)
    assert [(line.package_id, line.price) for line in recurring.lines] == [(MVP, Decimal("9.99"))]
    assert recurring.amount == Decimal("9.99")  # renewals charge MVP from now on
    assert recurring.payment_sequence == 1  # an upgrade is not a renewal
    assert recurring.payment_history == [bought.reference, payment.transaction_id]  # a payment though
    assert recurring.payment_count == 2
    commands = queued_for(demo, payment.id)
    assert commands and {int(c["package_id"]["N"]) for c in commands} == {MVP}
    assert {c["trigger"]["S"] for c in commands} == {"purchase"}
    [completed] = [e for e in published if e.type == EventType.PAYMENT_COMPLETED]
    assert completed.subject["transaction_id"] == payment.transaction_id

    # again: the tier is on MVP now; nothing is charged or queued twice
    before = table_snapshot(demo.table)
    again = patch(invoke, demo, tier.id, MVP)
    assert again.status == 200 and "already on MVP" in again.json()["message"]
    assert len(charges) == 1 and table_snapshot(demo.table) == before


def test_concurrent_upgrades_charge_once(
    demo: DemoStore,
    invoke: Invoke,
    traveller: time_machine.Coordinates,
    charges: list[OffSessionCharge],
) -> None:
    bought = buy_subscription(invoke, demo)
    tier = tier_of(demo, bought)
    traveller.move_to(HALFWAY)
    statuses: list[int] = []

    def one(_: int) -> None:
        statuses.append(patch(invoke, demo, tier.id, MVP).status)

    in_threads(one, [(n,) for n in range(4)])
    assert len(charges) == 1, charges
    assert 200 in statuses and set(statuses) <= {200, 409}, statuses
    [payment] = upgrade_payments(demo, bought)
    assert queued_for(demo, payment.id)
    moved = PlayerTierRepository(demo.table).get(1, tier.id)
    assert moved is not None and moved.package_id == MVP


def test_an_upgrade_takes_its_ids_in_its_transaction_and_retries_when_overtaken(
    demo: DemoStore,
    invoke: Invoke,
    traveller: time_machine.Coordinates,
    charges: list[OffSessionCharge],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The upgrade's payment and command ids come from the sequences read with its effects; a
    writer that took ids meanwhile makes its transaction fail on the sequences, and the upgrade
    reads again: recorded once, charged once, its commands after the ids taken meanwhile."""
    bought = buy_subscription(invoke, demo)
    tier = tier_of(demo, bought)
    traveller.move_to(HALFWAY)
    taken: list[int] = []
    reads: list[int] = []
    another_writer_takes_command_ids(monkeypatch, taken, reads)

    response = patch(invoke, demo, tier.id, MVP)
    assert response.status == 200, response.body
    assert len(charges) == 1 and taken and len(reads) == 2
    [payment] = upgrade_payments(demo, bought)
    command_ids = [int(c["id"]["N"]) for c in queued_for(demo, payment.id)]
    assert command_ids and min(command_ids) > max(taken)
    assert len(command_ids) == len(set(command_ids))


def test_a_declined_upgrade_is_402_and_changes_nothing(
    demo: DemoStore,
    invoke: Invoke,
    traveller: time_machine.Coordinates,
    published: list[DomainEvent],
    charges: list[OffSessionCharge],
) -> None:
    bought = buy_subscription(invoke, demo, card=SANDBOX_RENEWAL_DECLINED_CARD)  # pays now, declines later
    tier = tier_of(demo, bought)
    traveller.move_to(HALFWAY)
    published.clear()
    before = table_snapshot(demo.table)

    response = patch(invoke, demo, tier.id, MVP)
    assert response.status == 402, response.body
    body = response.json()
    assert "declined" in body["detail"] and "not changed" in body["detail"]
    assert [f["field"] for f in body["field_details"]] == ["package_id"]
    assert len(charges) == 1
    assert without_claims(table_snapshot(demo.table)) == without_claims(before)
    assert not published

    again = patch(invoke, demo, tier.id, MVP)  # a new attempt: a new idempotency key
    assert again.status == 402
    assert charges[0].idempotency_key != charges[1].idempotency_key


def test_a_cancelled_subscription_is_not_upgraded(
    demo: DemoStore, invoke: Invoke, traveller: time_machine.Coordinates, charges: list[OffSessionCharge]
) -> None:
    bought = buy_subscription(invoke, demo)
    tier = tier_of(demo, bought)
    RecurringPaymentRepository(demo.table).request_cancel(1, bought.reference, NOW, "test")
    response = patch(invoke, demo, tier.id, MVP)
    assert response.status == 422, response.body
    assert "undo the cancellation" in response.json()["detail"]
    assert not charges


def test_a_crash_after_the_charge_is_finished_by_the_next_request_without_charging_again(
    demo: DemoStore,
    invoke: Invoke,
    traveller: time_machine.Coordinates,
    charges: list[OffSessionCharge],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from webstore.subscriptions import upgrades

    bought = buy_subscription(invoke, demo)
    tier = tier_of(demo, bought)
    traveller.move_to(HALFWAY)
    real = upgrades.record_upgrade

    def crash(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the function died after the charge")

    monkeypatch.setattr(upgrades, "record_upgrade", crash)
    assert patch(invoke, demo, tier.id, MVP).status == 500
    assert len(charges) == 1 and not upgrade_payments(demo, bought)

    monkeypatch.setattr(upgrades, "record_upgrade", real)
    response = patch(invoke, demo, tier.id, MVP)
    assert response.status == 200, response.body
    assert len(charges) == 1  # the paid claim is recorded, not charged again
    [payment] = upgrade_payments(demo, bought)
    assert payment.amount == Decimal("2.50")


def test_after_an_upgrade_the_renewal_charges_the_new_package(
    demo: DemoStore, invoke: Invoke, traveller: time_machine.Coordinates, charges: list[OffSessionCharge]
) -> None:
    from webstore.services import get_services
    from webstore.subscriptions.processor import run_due

    bought = buy_subscription(invoke, demo)
    tier = tier_of(demo, bought)
    traveller.move_to(HALFWAY)
    assert patch(invoke, demo, tier.id, MVP).status == 200
    renewal_at = NOW + timedelta(days=30, minutes=1)
    traveller.move_to(renewal_at)
    report = run_due(get_services(), renewal_at)
    assert [o.kind.value for o in report.outcomes] == ["renewal charged"]
    assert [c.amount for c in charges] == [Decimal("2.50"), Decimal("9.99")]
    renewed = recurring_of(demo, bought)
    assert renewed.payment_sequence == 2 and renewed.lines[0].package_id == MVP
