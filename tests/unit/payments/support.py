"""Fakes for payment planning: the demo catalog as a StoreView, players, orders (no table)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from tests.support.demo import demo_catalog_data
from webstore import keys
from webstore.catalog import Store
from webstore.catalog_import import parse_catalog
from webstore.payments.order import Order, OrderLine
from webstore.repo.store import StoreView
from webstore.repo.users import User

NOW = datetime(2026, 3, 15, 12, 0, tzinfo=UTC)


def demo_view() -> StoreView:
    catalog = parse_catalog(demo_catalog_data())
    store = Store(
        **catalog.store.model_dump(exclude={"public_token", "checkout_api_key"}),
        sales=catalog.sales,
        created_at=NOW,
        public_token=keys.new_public_token(catalog.store.id),
        checkout_key_hash="",
    )
    return StoreView(
        store=store,
        goals=list(catalog.community_goals),
        categories=list(catalog.categories),
        packages=list(catalog.packages),
    )


def player(username: str, player_id: int) -> User:
    return User(player_id, username, keys.player_uuid(username))


STEVE = player("Steve", 1)
ALEX = player("Alex", 2)
RECIPIENTS = {"steve": STEVE, "alex": ALEX}


def order(*lines: OrderLine, **fields: Any) -> Order:
    values: dict[str, Any] = {
        "account_id": 1,
        "idempotency_key": "unit-1",
        "username": "Steve",
        "lines": list(lines) or [OrderLine(package_id=10, paid_price=Decimal("2.50"))],
        "price_paid": sum((line.paid_price for line in lines), Decimal(0)) if lines else Decimal("2.50"),
        "currency": "USD",
        **fields,
    }
    return Order(**values)
