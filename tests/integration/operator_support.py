"""Shared set-up of the operator interface tests: secrets, a second store, a controllable clock."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from webstore.catalog_import import ImportResult, import_catalog, parse_catalog
from webstore.db import Table
from webstore.operator import auth
from webstore.services import get_services

from functions.operator import create_payment
from tests.conftest import DemoStore, Invoke, demo_catalog_data


@pytest.fixture(autouse=True)
def fresh_auth_cache() -> Iterator[None]:
    """Verified secrets and blocked addresses are cached per process; tests start clean."""
    auth.cache.clear()
    yield
    auth.cache.clear()


def secret_headers(secret: str, header: str = "X-Tebex-Secret") -> dict[str, str]:
    return {header: secret}


@dataclass
class Clock:
    now: datetime

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


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


def manual_payment(
    invoke: Invoke,
    secret: str,
    ign: str = "Steve",
    packages: list[dict[str, Any]] | None = None,
    price: float = 10,
    **extra: Any,
) -> dict[str, Any]:
    body = {"ign": ign, "packages": packages or [{"id": 10}], "price": price, "note": "", **extra}
    response = invoke(create_payment.handler, "POST", "/payments", body=body, headers=secret_headers(secret))
    assert response.status == 200, response.body
    return dict(response.json())
