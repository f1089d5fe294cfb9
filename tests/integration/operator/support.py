"""Helpers of the operator interface tests: secrets, manual payments, threads, a clock."""

from __future__ import annotations

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
