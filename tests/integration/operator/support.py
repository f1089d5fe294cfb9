"""Helpers of the operator interface tests: secrets, manual payments, threads, a clock."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from functions.operator import create_payment
from tests.conftest import Invoke


def secret_headers(secret: str, header: str = "X-Tebex-Secret") -> dict[str, str]:
    return {header: secret}


@dataclass
class Clock:
    now: datetime

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


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
