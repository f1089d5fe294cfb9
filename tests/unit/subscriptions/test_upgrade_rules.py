"""The pure rules of a tier upgrade (webstore.subscriptions.upgrades): which packages' purchase
commands it runs, and what it makes of the subscription and the tier."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, cast

from webstore.catalog import Package, PackageType
from webstore.players import Tier, TierStatus
from webstore.recurring import RecurringLine, RecurringPayment
from webstore.repo.store import StoreView
from webstore.subscriptions.upgrades import deliverables, moved_recurring, moved_tier

NOW = datetime(2026, 6, 16, tzinfo=UTC)


def package(package_id: int, price: str, **fields: Any) -> Package:
    values: dict[str, Any] = {
        "id": package_id,
        "category_id": 1,
        "name": f"P{package_id}",
        "price": price,
        "type": PackageType.SUBSCRIPTION,
        "expiry_length": 1,
        "created_at": NOW,
        "updated_at": NOW,
    }
    return Package.model_validate({**values, **fields})


BRONZE, SILVER, GOLD = package(1, "1.00"), package(2, "2.00"), package(3, "3.00")
OTHER = package(4, "2.50", category_id=2)
OFF = package(5, "2.50", disabled=True)
VIEW = cast(StoreView, type("View", (), {"packages": [GOLD, OTHER, SILVER, OFF, BRONZE]})())


def test_an_upgrade_runs_every_tier_above_the_current_one_up_to_the_new_one() -> None:
    assert deliverables(VIEW, BRONZE, GOLD) == [SILVER, GOLD]  # the real platform's Example B
    assert deliverables(VIEW, SILVER, GOLD) == [GOLD]
    assert deliverables(VIEW, BRONZE, SILVER) == [SILVER]


def test_the_subscription_renews_the_new_package_and_the_tier_moves_keeping_its_period() -> None:
    line = RecurringLine(
        package_id=1,
        category_id=1,
        name="P1",
        quantity=2,
        price=Decimal("2.00"),
        username_id=9,
        username="A",
        tier_id=7,
    )
    recurring = RecurringPayment(
        reference="tbx-1-0a0b0c0d",
        account_id=1,
        username_id=9,
        username="A",
        lines=[line, line.model_copy(update={"tier_id": 8, "package_id": 4})],
        amount=Decimal("4.00"),
        currency="USD",
        period_length=1,
        period_unit="month",
        created_at=NOW,
        updated_at=NOW,
        last_payment_id=1,
        initial_payment_id=1,
    )
    moved = moved_recurring(recurring, 7, GOLD, NOW)
    assert [(x.package_id, x.price) for x in moved.lines] == [(3, Decimal("6.00")), (4, Decimal("2.00"))]
    assert moved.amount == Decimal("8.00")
    tier = Tier(
        id=7,
        username_id=9,
        category_id=1,
        package_id=2,
        status_id=TierStatus.PENDING_DOWNGRADE,
        pending_downgrade_package_id=1,
        created_at=NOW,
        next_payment_date=NOW,
    )
    after = moved_tier(tier, GOLD)
    assert (after.package_id, after.status_id, after.pending_downgrade_package_id) == (
        3,
        TierStatus.ACTIVE,
        None,
    )
    assert after.next_payment_date == tier.next_payment_date
