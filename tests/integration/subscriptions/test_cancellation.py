"""A subscription's whole cancellation story through the real handlers and the processor:
the player cancels from the receipt's link and undoes it, the operator cancels and the player
undoes that too, the player cancels again, and at the end of the paid period the processor ends
it as cancelled (expiry commands, tier cancelled, `recurring-payment.ended`) without charging."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode, urlsplit

import pytest
import time_machine

from functions.operator import cancel_recurring_payment, get_recurring_payment
from functions.storefront import get_basket_subscription_page, get_subscription_page, submit_subscription_page
from tests.integration.operator.support import secret_headers
from tests.support.cancellation import buy_subscription, table_snapshot
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from webstore.event_types import EventType
from webstore.events import DomainEvent
from webstore.players import TierStatus
from webstore.recurring import RecurringStatus
from webstore.repo.player_tiers import PlayerTierRepository
from webstore.services import local_bus

from .support import ACCOUNT, offline_commands, recurring, run

NOW = datetime(2026, 6, 16, 12, tzinfo=UTC)  # VIP bought; the paid period ends 16 July
PERIOD_END = datetime(2026, 7, 16, 12, tzinfo=UTC)
FORM = {"content-type": "application/x-www-form-urlencoded", "origin": "https://shop.test"}
EXPIRY = "lp user {username} parent remove vip"


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


def on_page(invoke: Invoke, path: str, action: str) -> Response:
    """The player opens the manage page and presses its one button (`action` names it)."""
    page = invoke(get_subscription_page.handler, "GET", path)
    assert page.status == 200, page.body
    assert f'id="{action}"' in page.body, page.body
    token = re.search(r'name="form_token" value="([^"]+)"', page.body)
    assert token
    answer = invoke(
        submit_subscription_page.handler,
        "POST",
        path,
        raw_body=urlencode({"action": action, "form_token": token.group(1)}),
        headers=FORM,
    )
    assert answer.status == 303, answer.body
    return invoke(get_subscription_page.handler, "GET", urlsplit(answer.headers["location"]).path)


def types(published: list[DomainEvent]) -> list[str]:
    return [e.type for e in published if e.type.startswith("recurring-payment.")]


def test_cancel_undo_cancel_by_operator_undo_cancel_again_then_it_ends_at_period_end(
    demo: DemoStore, invoke: Invoke, traveller: time_machine.Coordinates, published: list[DomainEvent]
) -> None:
    bought = buy_subscription(invoke, demo)
    reference = bought.reference
    published.clear()
    # the receipt's link leads to the signed manage page
    redirect = invoke(
        get_basket_subscription_page.handler, "GET", f"/checkout/{bought.basket_ident}/subscription"
    )
    assert redirect.status == 303, redirect.body
    page_path = urlsplit(redirect.headers["location"]).path

    traveller.shift(timedelta(days=2))
    ending = on_page(invoke, page_path, "cancel")
    assert "ends on 16 July 2026" in ending.body
    traveller.shift(timedelta(days=1))
    on_page(invoke, page_path, "undo")
    assert recurring(reference).cancel_requested_at is None

    traveller.shift(timedelta(days=1))
    operator = invoke(
        cancel_recurring_payment.handler,
        "DELETE",
        f"/recurring-payments/{reference}",
        headers=secret_headers(demo.server_secret),
    )
    assert operator.status == 200, operator.body
    assert operator.json()["cancel_reason"] == "Cancelled by the store"
    traveller.shift(timedelta(days=1))
    on_page(invoke, page_path, "undo")  # the player keeps it after all
    traveller.shift(timedelta(days=1))
    on_page(invoke, page_path, "cancel")
    assert types(published) == [
        EventType.RECURRING_CANCELLATION_REQUESTED,
        EventType.RECURRING_CANCELLATION_ABORTED,
        EventType.RECURRING_CANCELLATION_REQUESTED,
        EventType.RECURRING_CANCELLATION_ABORTED,
        EventType.RECURRING_CANCELLATION_REQUESTED,
    ]
    assert len({e.id for e in published}) == len(published)

    # before the period ends nothing happens; the perk is still the player's
    assert not run(PERIOD_END - timedelta(minutes=1)).outcomes
    assert EXPIRY not in offline_commands(invoke, demo)

    published.clear()
    traveller.move_to(PERIOD_END + timedelta(minutes=1))
    report = run(PERIOD_END + timedelta(minutes=1))
    assert [o.kind.value for o in report.outcomes] == ["cancelled"]
    ended = recurring(reference)
    assert ended.status is RecurringStatus.CANCELLED and ended.payment_sequence == 1  # never charged
    [tier_id] = ended.tier_ids
    tier = PlayerTierRepository(demo.table).get(ACCOUNT, tier_id)
    assert tier is not None and (tier.active, tier.status_id) == (False, TierStatus.CANCELLED)
    assert offline_commands(invoke, demo).count(EXPIRY) == 1
    assert types(published) == [EventType.RECURRING_STATUS_CHANGED, EventType.RECURRING_ENDED]
    [ended_event] = [e for e in published if e.type == EventType.RECURRING_ENDED]
    assert ended_event.subject["status"] == {"id": 3, "description": "Cancelled"}

    # the page says so and offers nothing; the operator sees it ended; a second run does nothing
    page = invoke(get_subscription_page.handler, "GET", page_path)
    assert "ended on 16 July 2026" in page.body and "<form" not in page.body
    shown = invoke(
        get_recurring_payment.handler,
        "GET",
        f"/recurring-payments/{reference}",
        headers=secret_headers(demo.server_secret),
    ).json()
    assert shown["status"]["active"] == 0 and shown["cancelled_at"] is not None
    before = table_snapshot(demo.table)
    assert not run(PERIOD_END + timedelta(minutes=2)).outcomes
    assert table_snapshot(demo.table) == before
