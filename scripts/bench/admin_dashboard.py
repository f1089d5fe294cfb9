"""Dashboard scenarios for scripts/bench_round_trips.py: the panel's home page (`GET /`) for a
store with 1,000 and one with 50,000 payments over a year, at 30 and 365 days, signed in as the
owner. The figures to compare: the same round trips and the same items read at both sizes (the
dashboard reads days, not payments): one round side by side, the session's GetItem among them.

Seeded fast: payment items and their days' aggregates written with the repositories' item
builders in batch writes (the 50,000-payment store takes a minute or more under moto).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from functions.admin import get_dashboard
from tests.support.demo import demo_catalog_data
from webstore import keys
from webstore.admin import sessions
from webstore.admin.roles import Role
from webstore.admin.staff import create_member
from webstore.catalog_import import import_catalog, parse_catalog
from webstore.db import Table
from webstore.repo.daily_stats import DailyStatsRepository, utc_day
from webstore.repo.payments import PaymentLine, PaymentRecord, PaymentRepository
from webstore.services import get_services

SIZES = {3: 1_000, 4: 50_000}  # account id -> payments
PASSWORD = "bench owner passphrase"
NOW = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)
PACKAGES = ((10, "Diamond Sword", Decimal("2.50")), (11, "Named Cape", Decimal("4.99")))


def _payment(account_id: int, payment_id: int, at: datetime) -> PaymentRecord:
    package_id, name, price = PACKAGES[payment_id % len(PACKAGES)]
    username = f"Player{payment_id % 500}"
    line = PaymentLine(
        package_id=package_id, category_id=2, name=name, quantity=1, base_price=price, price=price,
        username_id=payment_id % 500 + 1, username=username, uuid=keys.player_uuid(username),
    )  # fmt: skip
    return PaymentRecord(
        id=payment_id, transaction_id=keys.new_transaction_id(payment_id), account_id=account_id,
        amount=price, currency="USD", gateway="manual", email="", username_id=line.username_id,
        username=username, uuid=line.uuid, lines=[line], idempotency_key=f"bench-{payment_id}",
        created_at=at, updated_at=at,
    )  # fmt: skip


def seed(table: Table, account_id: int, count: int) -> None:
    """`count` payments spread evenly over the last 365 days, and the days' aggregates."""
    data = demo_catalog_data()
    data["store"] = {**data["store"], "id": account_id, "name": f"Bench {count}"}
    import_catalog(table, parse_catalog(data))
    step = timedelta(days=365) / count
    by_day: dict[Any, list[PaymentRecord]] = {}
    items = []
    for payment_id in range(1, count + 1):
        payment = _payment(account_id, payment_id, NOW - step * (count - payment_id))
        by_day.setdefault(utc_day(payment.created_at), []).append(payment)
        items.append(PaymentRepository.item(payment))
    items += [DailyStatsRepository.day_item(account_id, d, found) for d, found in by_day.items()]
    table.batch_write(items)


def setup(ctx: dict[str, Any]) -> None:
    services = get_services()
    cookies = {}
    for account_id, count in SIZES.items():
        seed(ctx["table"], account_id, count)
        owner = create_member(
            services, account_id, f"owner@bench{account_id}.test", Role.OWNER, NOW, PASSWORD
        )
        cookies[account_id] = sessions.issue(services, owner.member, datetime.now(UTC)).value
    ctx["admin_dashboard"] = cookies


def scenarios(ctx: dict[str, Any]) -> Iterator[tuple[str, Any, str, str, dict[str, Any]]]:
    cookies = ctx["admin_dashboard"]
    for days in (30, 365):
        for account_id, count in SIZES.items():
            headers = {"cookie": f"{sessions.COOKIE_NAME}={cookies[account_id]}"}
            label = f"admin dashboard ({days} d, {count:,} payments)"
            yield label, get_dashboard.handler, "GET", "/", {"query": {"days": str(days)}, "headers": headers}
