"""Subscriptions as webhook receivers see them: recurring-payment.started with the payment,
recurring-payment.ended with its refund or chargeback; one-off packages publish neither."""

from __future__ import annotations

from typing import Any

import pytest

from functions.operator import update_payment
from tests.integration.operator.support import manual_payment, secret_headers
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore.events import DomainEvent
from webstore.services import local_bus


def published(kind: str) -> list[DomainEvent]:
    return [e for e in local_bus().published if e.type.startswith(kind)]


@pytest.fixture(autouse=True)
def clean_bus() -> None:
    local_bus().published.clear()


def test_subscription_payment_starts_and_refund_ends_a_recurring_payment(
    demo: DemoStore, invoke: Invoke
) -> None:
    payment: dict[str, Any] = manual_payment(
        invoke, demo.server_secret, ign="Steve", packages=[{"id": 1}, {"id": 10}]
    )
    [started] = published("recurring-payment")
    assert started.type == "recurring-payment.started"
    assert started.subject["status"] == {"id": 1, "description": "Active"}
    assert started.subject["product"] == {"id": 1, "name": "VIP"}
    assert started.subject["initial_payment"]["transaction_id"] == payment["txn_id"]

    headers = secret_headers(demo.server_secret)
    refunded = invoke(
        update_payment.handler,
        "PUT",
        f"/payments/{payment['txn_id']}",
        headers=headers,
        body={"status": "refund"},
    )
    assert refunded.status == 200, refunded.body
    ended = [e for e in published("recurring-payment") if e.type == "recurring-payment.ended"]
    assert len(ended) == 1
    assert ended[0].subject["status"]["description"] == "Cancelled"
    assert ended[0].subject["reference"] == started.subject["reference"]


def test_one_off_packages_publish_no_recurring_events(demo: DemoStore, invoke: Invoke) -> None:
    manual_payment(invoke, demo.server_secret, packages=[{"id": 10}])
    assert published("recurring-payment") == []
    assert [e.type for e in local_bus().published] == ["payment.completed"]
