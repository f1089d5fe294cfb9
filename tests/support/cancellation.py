"""What the cancellation and upgrade tests share: a recurring payment written as fulfilment
writes one, and a whole-table snapshot to show a refused request wrote nothing."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from webstore.db import Table
from webstore.recurring import RecurringLine, RecurringPayment
from webstore.repo.recurring_payments import RecurringPaymentRepository

REFERENCE = "tbx-1-0a0b0c0d"


def seed_recurring(table: Table, now: datetime, **fields: Any) -> RecurringPayment:
    """The demo store's VIP (package 1, tiered category 1) bought by player 42 fifteen days
    before `now`, renewing monthly in fifteen days."""
    values: dict[str, Any] = {
        "reference": REFERENCE,
        "account_id": 1,
        "username_id": 42,
        "username": "Notch",
        "lines": [
            RecurringLine(
                package_id=1,
                category_id=1,
                name="VIP",
                price=Decimal("4.99"),
                username_id=42,
                username="Notch",
                tier_id=7,
            )
        ],
        "amount": Decimal("4.99"),
        "currency": "USD",
        "period_length": 1,
        "period_unit": "month",
        "created_at": now - timedelta(days=15),
        "updated_at": now - timedelta(days=15),
        "next_payment_at": now + timedelta(days=15),
        "last_payment_id": 1,
        "initial_payment_id": 1,
        "saved_method": "sandbox-card",
        "gateway": "sandbox",
    }
    values.update(fields)
    recurring = RecurringPayment(**values)
    table.put(RecurringPaymentRepository.item(recurring))
    return recurring


def table_snapshot(table: Table) -> list[dict[str, Any]]:
    """Every item of the table, in key order (tests only: a Scan)."""
    items: list[dict[str, Any]] = []
    start: dict[str, Any] | None = None
    while True:
        params: dict[str, Any] = {"TableName": table.name, **({"ExclusiveStartKey": start} if start else {})}
        page = table.client.scan(**params)
        items.extend(page["Items"])
        start = page.get("LastEvaluatedKey")
        if not start:
            return sorted(items, key=lambda i: (str(i["PK"]), str(i["SK"])))
