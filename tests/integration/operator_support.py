"""Shared set-up of the operator interface tests: secrets, a second store, a controllable clock."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from functions.operator import create_payment
from tests.conftest import DemoStore, Invoke, demo_catalog_data
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


def in_threads(target: Callable[..., None], args_list: list[tuple[Any, ...]]) -> None:
    """Run `target` once per args tuple, all released together (each thread an "instance":
    Mangum needs an event loop of its own in every thread)."""
    barrier = threading.Barrier(len(args_list))
    errors: list[BaseException] = []

    def run(*args: Any) -> None:
        asyncio.set_event_loop(asyncio.new_event_loop())
        barrier.wait()
        try:
            target(*args)
        except BaseException as error:  # surfaced in the test thread below
            errors.append(error)

    threads = [threading.Thread(target=run, args=args) for args in args_list]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


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
