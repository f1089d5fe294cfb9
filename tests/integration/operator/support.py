"""Helpers of the operator interface tests: secrets, manual payments."""

from __future__ import annotations

from typing import Any

from functions.operator import create_payment
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke


def secret_headers(secret: str, header: str = "X-Tebex-Secret") -> dict[str, str]:
    return {header: secret}


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


def call(invoke: Invoke, demo: DemoStore, module: Any, method: str, path: str, **kwargs: Any) -> Any:
    return invoke(module.handler, method, path, headers=secret_headers(demo.server_secret), **kwargs)
