"""Fixtures of the shop's tests: a player's browser through the handlers, a player's tier."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.support.demo import DemoStore
from tests.support.shop import ShopClient
from webstore.players import Tier
from webstore.repo.player_tiers import tier_item


@pytest.fixture
def player(demo: DemoStore) -> ShopClient:
    """A first-time visitor of the demo store's shop (no cookies yet)."""
    del demo
    return ShopClient()


@pytest.fixture
def seed_tier(demo: DemoStore) -> Callable[..., Tier]:
    """A player's VIP tier in the demo's tiered category, as fulfilment writes it."""

    def _seed(**fields: Any) -> Tier:
        values: dict[str, Any] = {
            "id": 7,
            "username_id": 42,
            "category_id": 1,
            "package_id": 1,
            "recurring_payment_reference": "tbx-1-0a0b0c0d",
            "created_at": datetime.now(UTC) - timedelta(days=15),
            "next_payment_date": datetime.now(UTC) + timedelta(days=15),
        } | fields
        tier = Tier(**values)
        demo.table.put(tier_item(1, tier))
        return tier

    return _seed
