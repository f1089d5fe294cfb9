"""Helpers shared by tests of several areas."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from webstore import keys
from webstore.basket import Basket
from webstore.db import Table
from webstore.repo.baskets import BasketRepository


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
