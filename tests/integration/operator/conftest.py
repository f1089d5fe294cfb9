"""Fixtures of the operator interface tests: clean auth cache, a second store, the clock."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.conftest import DemoStore, demo_catalog_data
from tests.integration.operator.support import Clock
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


@pytest.fixture
def atomic_calls(demo: DemoStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """moto is not thread-safe inside one call (a transaction deep-copies tables while another
    thread writes); real DynamoDB makes each call atomic. Make each call atomic here too, so
    threads interleave between calls exactly as concurrent Lambda instances would."""
    client = get_services().table.client
    original = client._make_api_call
    lock = threading.Lock()

    def atomic(operation: str, params: dict[str, Any]) -> Any:
        with lock:
            return original(operation, params)

    monkeypatch.setattr(client, "_make_api_call", atomic)
