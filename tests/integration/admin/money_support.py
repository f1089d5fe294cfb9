"""Helpers of the panel's payments, subscriptions and players tests: payments recorded at
chosen instants through the fulfilment use case, and the clock."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from tests.support.clock import Clock
from webstore.domain.gateways import SANDBOX
from webstore.payments import recording
from webstore.payments.order import Order, OrderLine
from webstore.repo.payments import PaymentRecord
from webstore.services import get_services

START = datetime(2026, 3, 15, 12, 0, 0, tzinfo=UTC)


def use_clock(at: datetime = START) -> Clock:
    clock = Clock(at)
    get_services().clock = clock
    return clock


def pay(
    key: str,
    username: str = "Steve",
    package_id: int = 10,
    price: str = "2.50",
    account_id: int = 1,
    **overrides: Any,
) -> PaymentRecord:
    """A sandbox payment of one package, recorded as checkout records one."""
    order = Order(
        account_id=account_id,
        idempotency_key=key,
        username=username,
        email=f"{username.lower()}@example.test",
        lines=[OrderLine(package_id=package_id, paid_price=Decimal(price))],
        price_paid=Decimal(price),
        currency="USD",
        gateway=SANDBOX.name,
        **overrides,
    )
    return recording.fulfil(get_services(), order)


def handed_out(account_id: int = 1, servers: tuple[int, ...] = (1, 2)) -> None:
    """A plugin fetched every command waiting (GET /queue/...-commands marks them fetched: they
    may have run, so a refund undoes them instead of withdrawing them)."""
    from webstore.repo.queue import QueueRepository

    queue = QueueRepository(get_services().table)
    for server_id in servers:
        queue.fetch(account_id, server_id, "O", 1000, 0)  # OFF# and ON#
