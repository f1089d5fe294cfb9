"""GET and DELETE {plugin_url}/recurring-payments/{reference}: the operator's view of a
subscription and its cancellation at the end of the paid period (real handlers, moto)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from functions.operator import cancel_recurring_payment, get_recurring_payment
from tests.integration.operator.support import secret_headers
from tests.support.cancellation import buy_subscription, seed_recurring, table_snapshot
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from webstore.catalog_import import ImportResult
from webstore.event_types import EventType
from webstore.events import DomainEvent
from webstore.recurring import RecurringStatus
from webstore.services import local_bus

NOW = datetime(2026, 6, 16, 12, tzinfo=UTC)
SEEDED = "tbx-1-0a0b0c0d"


@pytest.fixture
def traveller(demo: DemoStore) -> Iterator[time_machine.Coordinates]:
    with time_machine.travel(NOW, tick=False) as coordinates:
        yield coordinates


@pytest.fixture
def published() -> Iterator[list[DomainEvent]]:
    bus = local_bus()
    bus.published.clear()
    yield bus.published
    bus.published.clear()


@pytest.fixture
def reference(
    demo: DemoStore, invoke: Invoke, traveller: time_machine.Coordinates, published: list[DomainEvent]
) -> str:
    """VIP (monthly, $4.99) bought by Notch at NOW in the hosted checkout."""
    bought = buy_subscription(invoke, demo)
    published.clear()
    return bought.reference


def get(invoke: Invoke, demo: DemoStore, reference: str, secret: str | None = None) -> Response:
    return invoke(
        get_recurring_payment.handler,
        "GET",
        f"/recurring-payments/{reference}",
        headers=secret_headers(secret or demo.server_secret),
    )


def delete(invoke: Invoke, demo: DemoStore, reference: str, secret: str | None = None) -> Response:
    return invoke(
        cancel_recurring_payment.handler,
        "DELETE",
        f"/recurring-payments/{reference}",
        headers=secret_headers(secret or demo.server_secret),
    )


def test_get_answers_the_checkout_api_shape(demo: DemoStore, invoke: Invoke, reference: str) -> None:
    response = get(invoke, demo, reference)
    assert response.status == 200, response.body
    body = response.json()
    assert body["reference"] == reference
    assert body["id"] == int(reference.split("-")[1]) and body["account_id"] == 1
    assert body["interval"] == "P1M"
    assert body["status"] == {"id": 1, "class": "success", "description": "Active", "active": 1}
    assert body["amount"] == {"amount": 4.99, "tax": 0.0, "period": "P1M", "currency": "USD"}
    assert datetime.fromisoformat(body["next_payment_date"]) == datetime(2026, 7, 16, 12, tzinfo=UTC)
    assert body["cancellation_requested_at"] is None and body["cancelled_at"] is None
    assert body["paused_at"] is None and body["cancel_reason"] is None
    assert body["links"]["initial_payment"] == f"https://plugin.test/payments/{reference}"
    assert body["links"]["payment_history"] == [f"https://plugin.test/payments/{reference}"]
    assert body["products"] == [{"id": 1, "name": "VIP", "quantity": 1, "username": "Notch"}]


def test_a_record_from_before_the_history_was_kept_lists_its_first_payment(
    demo: DemoStore, invoke: Invoke, traveller: time_machine.Coordinates
) -> None:
    seed_recurring(demo.table, NOW, payment_sequence=3, last_payment_id=5)  # no payment_history
    body = get(invoke, demo, SEEDED).json()
    assert body["links"]["payment_history"] == [f"https://plugin.test/payments/{SEEDED}"]


def test_delete_cancels_at_the_end_of_the_period(
    demo: DemoStore,
    invoke: Invoke,
    traveller: time_machine.Coordinates,
    reference: str,
    published: list[DomainEvent],
) -> None:
    response = delete(invoke, demo, reference)
    assert response.status == 200, response.body
    body = response.json()
    assert datetime.fromisoformat(body["cancellation_requested_at"]) == NOW
    assert body["cancel_reason"] == "Cancelled by the store"
    assert body["status"]["active"] == 1  # ends when the paid period does
    assert body["next_payment_date"] is not None
    [event] = published
    assert event.type == EventType.RECURRING_CANCELLATION_REQUESTED
    assert event.subject["reference"] == reference
    assert event.subject["cancel_reason"] == "Cancelled by the store"
    assert event.subject["last_payment"]["transaction_id"] == reference

    before = table_snapshot(demo.table)
    traveller.shift(timedelta(minutes=1))
    again = delete(invoke, demo, reference)
    assert again.status == 200 and again.json() == body  # idempotent
    assert table_snapshot(demo.table) == before
    assert [e.id for e in published] == [event.id]  # written with the first change, once
    assert (
        get(invoke, demo, reference).json()["cancellation_requested_at"] == body["cancellation_requested_at"]
    )


def test_unknown_reference_and_another_stores_subscription_are_404(
    demo: DemoStore, invoke: Invoke, reference: str, other_store: ImportResult
) -> None:
    before = table_snapshot(demo.table)
    other_secret = other_store.server_secrets[1]
    for response in (
        get(invoke, demo, "tbx-9999-0a0b0c0d"),
        delete(invoke, demo, "tbx-9999-0a0b0c0d"),
        get(invoke, demo, reference, secret=other_secret),
        delete(invoke, demo, reference, secret=other_secret),
    ):
        assert response.status == 404, response.body
        assert response.json()["error_code"] == 404
    assert table_snapshot(demo.table) == before


def test_a_wrong_secret_is_403(demo: DemoStore, invoke: Invoke, reference: str) -> None:
    assert delete(invoke, demo, reference, secret="not-the-secret").status == 403
    assert get(invoke, demo, reference).json()["cancellation_requested_at"] is None


def test_an_ended_subscription_cannot_be_cancelled(
    demo: DemoStore, invoke: Invoke, traveller: time_machine.Coordinates
) -> None:
    seed_recurring(demo.table, NOW, status=RecurringStatus.EXPIRED, cancelled_at=NOW, schedule_sk=None)
    response = delete(invoke, demo, SEEDED)
    assert response.status == 409, response.body
    body = get(invoke, demo, SEEDED).json()
    assert body["status"] == {"id": 4, "class": "danger", "description": "Expired", "active": 0}
    assert body["next_payment_date"] is None
