"""Subscription processor scenarios for scripts/bench_round_trips.py: round trips of one
processor run with nothing due, one renewal, one declined renewal, one subscription's end and
one timed package's expiry (each run alone: the harness counts the whole run)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from webstore.calendar import add_periods
from webstore.catalog import Package
from webstore.checkout.gateway import SANDBOX_SAVED_CARD, SANDBOX_SAVED_DECLINING_CARD
from webstore.payments.order import Order, OrderLine
from webstore.payments.recording import fulfil
from webstore.repo.store import StoreRepository
from webstore.services import get_services
from webstore.subscriptions.processor import run_due

ACCOUNT = 1
# After everything the other scenario modules bought has been played up to here (setup).
ANCHOR = datetime(2031, 1, 1, 12, tzinfo=UTC)


def _buy(name: str, package_id: int, saved_method: str, at: datetime) -> None:
    services = get_services()
    services.clock = lambda: at
    price = Decimal("4.99") if package_id == 1 else Decimal("1.00")
    fulfil(
        services,
        Order(
            account_id=ACCOUNT,
            idempotency_key=f"bench-subscriptions-{name}",
            username=name,
            lines=[OrderLine(package_id=package_id, paid_price=price)],
            price_paid=price,
            currency="USD",
            saved_method=saved_method,
        ),
    )


def setup(ctx: dict[str, Any]) -> None:
    services = get_services()
    run_due(services, ANCHOR)  # the other modules' subscriptions: renewed up to the anchor
    fly = Package.model_validate(
        {
            "id": 30,
            "category_id": 2,
            "name": "Fly (7 days)",
            "price": "1.00",
            "expiry_length": 7,
            "expiry_period": "day",
            "commands": [
                {"server_id": 1, "command": "fly {username} on"},
                {"server_id": 1, "command": "fly {username} off", "trigger": "expiry"},
            ],
            "created_at": ANCHOR,
            "updated_at": ANCHOR,
        }
    )
    services.table.put(StoreRepository(services.table).entity_item(ACCOUNT, fly))
    # One thing due per scenario, each a day after the previous one's (the declined renewal
    # last: its retry comes a day later).
    month_before = ANCHOR - timedelta(days=31)  # December has 31 days: due on ANCHOR + n days
    _buy("BenchRenews", 1, SANDBOX_SAVED_CARD, month_before + timedelta(days=1))
    _buy("BenchManual", 1, "", month_before + timedelta(days=2))
    _buy("BenchFlies", 30, "", ANCHOR - timedelta(days=7) + timedelta(days=3))
    _buy("BenchDeclines", 1, SANDBOX_SAVED_DECLINING_CARD, month_before + timedelta(days=4))
    services.clock = lambda: datetime.now(UTC)
    ctx["subscriptions_due"] = [add_periods(ANCHOR, days, "day") for days in range(1, 5)]


def _run_at(now: datetime) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        report = run_due(get_services(), now)
        return {"statusCode": 200 if not report.failed else 500, "body": report.summary()}

    return handler


def scenarios(ctx: dict[str, Any]) -> Iterator[tuple[str, Any, str, str, dict[str, Any]]]:
    renewal, ended, timed, declined = ctx["subscriptions_due"]
    yield "processor run (nothing due)", _run_at(ANCHOR), "POST", "/clock", {}
    yield "processor run (1 renewal charged)", _run_at(renewal), "POST", "/clock", {}
    yield "processor run (1 subscription expired)", _run_at(ended), "POST", "/clock", {}
    yield "processor run (1 timed package expired)", _run_at(timed), "POST", "/clock", {}
    yield "processor run (1 renewal declined)", _run_at(declined), "POST", "/clock", {}
