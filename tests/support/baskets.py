"""Baskets written straight to the table, for tests and benchmarks that start from a basket in
a given state."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from webstore import keys
from webstore.basket import Basket
from webstore.db import Table
from webstore.repo.baskets import BasketRepository


def seed_basket(table: Table, account_id: int = 1, **fields: Any) -> Basket:
    """A USD basket of `account_id` written straight to the table (as createBasket writes one),
    for tests and benchmarks that start from a basket in a given state."""
    now = datetime.now(UTC)
    basket = Basket(
        ident=keys.new_basket_ident(account_id),
        account_id=account_id,
        currency="USD",
        created_at=now,
        updated_at=now,
        **{"expires_at": int((now + timedelta(days=7)).timestamp()), **fields},
    )
    BasketRepository(table).create(basket)
    return basket
