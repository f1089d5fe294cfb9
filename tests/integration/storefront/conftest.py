"""Fixtures of the storefront tests: seeds: baskets and tiers written as their owners write them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.integration.storefront.support import ACCOUNT
from tests.support.baskets import seed_basket
from tests.support.demo import DemoStore
from webstore.basket import Basket
from webstore.events import DomainEvent
from webstore.players import Tier
from webstore.repo.player_tiers import tier_item
from webstore.services import local_bus


@pytest.fixture
def make_basket(demo: DemoStore) -> Callable[..., Basket]:
    """A basket of the demo store, written the way createBasket writes it."""

    def _make(**fields: Any) -> Basket:
        return seed_basket(demo.table, ACCOUNT, **fields)

    return _make


@pytest.fixture
def seed_tier(demo: DemoStore) -> Callable[..., Tier]:
    """A tier item exactly as the brief's contract has fulfilment write it."""

    def _seed(**fields: Any) -> Tier:
        values: dict[str, Any] = {
            "id": 7,
            "username_id": 42,
            "category_id": 1,
            "package_id": 1,
            "recurring_payment_reference": "tbx-1-0a0b0c0d",
            "created_at": datetime.now(UTC) - timedelta(days=15),
            "next_payment_date": datetime.now(UTC) + timedelta(days=15),
        }
        values.update(fields)
        tier = Tier(**values)
        demo.table.put(tier_item(ACCOUNT, tier))
        return tier

    return _seed


@pytest.fixture
def published() -> Iterator[list[DomainEvent]]:
    """Events the in-process bus received during the test."""
    bus = local_bus()
    bus.published.clear()
    yield bus.published
    bus.published.clear()
