"""What the cancellation and upgrade tests share: a subscription bought through the hosted
checkout (real handlers), a recurring payment written as fulfilment writes one, and a
whole-table snapshot to show a refused request wrote nothing."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

from functions.storefront import add_basket_package, create_basket, get_checkout_page, pay_checkout
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore.db import Table
from webstore.recurring import RecurringLine, RecurringPayment
from webstore.repo.recurring_payments import RecurringPaymentRepository

REFERENCE = "tbx-1-0a0b0c0d"
FORM = {"content-type": "application/x-www-form-urlencoded"}


@dataclass(frozen=True)
class Bought:
    basket_ident: str
    reference: str  # the recurring payment's: the first payment's transaction id


def buy_subscription(
    invoke: Invoke,
    demo: DemoStore,
    username: str = "Notch",
    package_id: int = 1,
    card: str = "4242 4242 4242 4242",
    email: str = "",
) -> Bought:
    """A subscription package bought in the hosted checkout with the consent ticked."""
    created = invoke(
        create_basket.handler,
        "POST",
        f"/api/accounts/{demo.token}/baskets",
        body={
            "complete_url": "http://localhost:3000/thanks",
            "cancel_url": "http://localhost:3000/basket",
            "username": username,
        },
    )
    assert created.status == 200, created.body
    ident: str = created.json()["data"]["ident"]
    added = invoke(
        add_basket_package.handler,
        "POST",
        f"/api/baskets/{ident}/packages",
        body={"package_id": package_id, "quantity": 1},
    )
    assert added.status == 200, added.body
    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    key = re.search(r'name=attempt_key value="([^"]+)"', page.body)
    assert key, page.body
    paid = invoke(
        pay_checkout.handler,
        "POST",
        f"/checkout/{ident}/pay",
        raw_body=urlencode(
            {
                "attempt_key": key.group(1),
                "card_number": card,
                "subscription_consent": "yes",
                "amount_due": _shown(page.body),
                **({"email": email} if email else {}),
            }
        ),
        headers=FORM,
    )
    assert paid.status == 303, paid.body
    from webstore.repo.baskets import BasketRepository

    basket = BasketRepository(demo.table).get(ident)
    assert basket.complete and basket.transaction_id
    return Bought(ident, basket.transaction_id)


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


def _shown(page: str) -> str:
    """The amount due the checkout page showed (its hidden `amount_due`)."""
    shown = re.search(r'name=amount_due value="([^"]+)"', page)
    assert shown, page
    return shown.group(1)
