"""Fixtures of the operator interface tests: clean auth cache, a second store, the clock."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from tests.support.clock import Clock
from tests.support.demo import DemoStore, demo_catalog_data
from webstore.catalog_import import ImportResult, import_catalog, parse_catalog
from webstore.db import Table
from webstore.operator import auth
from webstore.services import get_services


@pytest.fixture(autouse=True)
def fresh_auth_cache() -> Iterator[None]:
    """Verified secrets and blocked addresses are cached per process; tests start clean."""
    auth.cache.clear()
    yield
    auth.cache.clear()


@pytest.fixture
def clock(demo: DemoStore) -> Clock:
    """The services clock, frozen at a known instant; `clock.advance(s)` moves it."""
    controlled = Clock(datetime(2026, 3, 15, 12, 0, 0, tzinfo=UTC))
    get_services().clock = controlled
    return controlled


@pytest.fixture
def other_store(demo: DemoStore, table: Table) -> ImportResult:
    """A second store (account 2): the demo catalog under another id."""
    data = demo_catalog_data()
    data["store"] = {**data["store"], "id": 2, "name": "Other Craft"}
    return import_catalog(table, parse_catalog(data))
