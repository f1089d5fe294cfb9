"""The player's manage-subscription page: signed link, form token, cancel, undo, through the
real handlers (moto), time moved by time-machine."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode, urljoin, urlsplit

import pytest
import time_machine

from functions.storefront import (
    get_basket_subscription_page,
    get_checkout_receipt,
    get_subscription_page,
    submit_subscription_page,
)
from tests.support.baskets import seed_basket
from tests.support.cancellation import Bought, buy_subscription, seed_recurring, table_snapshot
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from webstore.basket import BasketLine
from webstore.event_types import EventType
from webstore.events import DomainEvent
from webstore.recurring import RecurringPayment, RecurringStatus
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.services import get_services
from webstore.subscriptions import manage_links

NOW = datetime(2026, 6, 16, 12, tzinfo=UTC)
FORM = {"content-type": "application/x-www-form-urlencoded", "origin": "https://shop.test"}


@pytest.fixture
def traveller(demo: DemoStore) -> Iterator[time_machine.Coordinates]:
    with time_machine.travel(NOW, tick=False) as coordinates:
        yield coordinates


@pytest.fixture
def bought(demo: DemoStore, invoke: Invoke, traveller: time_machine.Coordinates) -> Bought:
    """VIP (monthly, $4.99) bought by Notch at NOW in the hosted checkout: renews 16 July."""
    global REFERENCE
    purchase = buy_subscription(invoke, demo)
    REFERENCE = purchase.reference
    return purchase


REFERENCE = ""


def link(account_id: int = 1, reference: str | None = None) -> str:
    """The page's path for a genuine token."""
    reference = reference or REFERENCE
    return urlsplit(manage_links.manage_url("", get_services().secrets, account_id, reference)).path


def show(invoke: Invoke, path: str) -> Response:
    return invoke(get_subscription_page.handler, "GET", path)


def form_token_of(page: Response) -> str:
    found = re.search(r'name="form_token" value="([^"]+)"', page.body)
    assert found, page.body
    return found.group(1)


def submit(invoke: Invoke, path: str, headers: dict[str, str] | None = None, **fields: str) -> Response:
    return invoke(
        submit_subscription_page.handler,
        "POST",
        path,
        raw_body=urlencode(fields),
        headers=FORM if headers is None else headers,
    )


def act(invoke: Invoke, action: str, **fields: str) -> Response:
    """Open the page, post its form for `action`."""
    page = show(invoke, link())
    assert page.status == 200, page.body
    response = submit(invoke, link(), action=action, form_token=form_token_of(page), **fields)
    assert response.status == 303, response.body
    assert response.headers["location"] == f"https://shop.test{link()}"
    return response


def stored(demo: DemoStore) -> RecurringPayment:
    recurring = RecurringPaymentRepository(demo.table).get(1, REFERENCE)
    assert recurring is not None
    return recurring


def events_of(published: list[DomainEvent], event_type: EventType) -> list[DomainEvent]:
    return [e for e in published if e.type == event_type]


def test_the_page_shows_the_subscription_and_a_cancel_form(
    demo: DemoStore, invoke: Invoke, traveller: time_machine.Coordinates, bought: Bought
) -> None:
    page = show(invoke, link())
    assert page.status == 200, page.body
    assert page.headers["content-type"].startswith("text/html")
    assert page.headers["cache-control"] == "no-store"
    assert "form-action 'self'" in page.headers["content-security-policy"]
    assert 'id="package">VIP<' in page.body
    assert "$4.99 USD every month" in page.body
    assert "16 July 2026" in page.body  # next payment: a month on
    assert 'id="cancel"' in page.body and 'id="undo"' not in page.body


def test_cancel_then_undo_then_cancel_again(
    demo: DemoStore,
    invoke: Invoke,
    traveller: time_machine.Coordinates,
    bought: Bought,
    published: list[DomainEvent],
) -> None:
    published.clear()  # the purchase's own events
    act(invoke, "cancel", reason="Too  expensive")
    recurring = stored(demo)
    assert recurring.cancel_requested_at == NOW
    assert recurring.cancel_reason == "Too expensive"
    assert recurring.status is RecurringStatus.ACTIVE  # the perk runs to the end of the period
    [requested] = events_of(published, EventType.RECURRING_CANCELLATION_REQUESTED)
    assert requested.subject["reference"] == REFERENCE
    assert requested.subject["cancel_reason"] == "Too expensive"
    assert requested.subject["status"] == {"id": 1, "description": "Active"}

    page = show(invoke, link())
    assert "ends on 16 July 2026" in page.body
    assert 'id="undo"' in page.body and 'id="cancel"' not in page.body

    traveller.shift(timedelta(days=3))
    act(invoke, "undo")
    assert stored(demo).cancel_requested_at is None
    [aborted] = events_of(published, EventType.RECURRING_CANCELLATION_ABORTED)
    assert aborted.subject["cancelled_at"] is None and aborted.subject["cancel_reason"] is None

    traveller.shift(timedelta(days=1))
    act(invoke, "cancel")
    assert stored(demo).cancel_reason == "Cancelled by the player"
    requests = events_of(published, EventType.RECURRING_CANCELLATION_REQUESTED)
    assert len(requests) == 2 and requests[0].id != requests[1].id  # two requests, two events


def test_a_repeated_cancel_changes_nothing_and_sends_nothing_again(
    demo: DemoStore,
    invoke: Invoke,
    traveller: time_machine.Coordinates,
    bought: Bought,
    published: list[DomainEvent],
) -> None:
    published.clear()  # the purchase's own events
    page = show(invoke, link())
    token = form_token_of(page)
    assert submit(invoke, link(), action="cancel", form_token=token).status == 303
    before = table_snapshot(demo.table)
    traveller.shift(timedelta(seconds=30))
    assert submit(invoke, link(), action="cancel", form_token=token).status == 303
    assert table_snapshot(demo.table) == before
    # the first cancel's event was written with its change: nothing to make good
    assert len(events_of(published, EventType.RECURRING_CANCELLATION_REQUESTED)) == 1


@pytest.mark.parametrize(
    "path",
    [
        "/subscriptions/1.{ref}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",  # a guessed MAC
        "/subscriptions/{ref}",  # the reference alone
        "/subscriptions/Notch",  # a username
        "/subscriptions/1.{ref}",
    ],
)
def test_a_link_that_is_not_genuine_is_404_and_writes_nothing(
    demo: DemoStore, invoke: Invoke, traveller: time_machine.Coordinates, bought: Bought, path: str
) -> None:
    genuine = form_token_of(show(invoke, link()))
    path = path.format(ref=REFERENCE)
    before = table_snapshot(demo.table)
    assert show(invoke, path).status == 404
    response = submit(invoke, path, action="cancel", form_token=genuine)
    assert response.status == 404
    assert "not valid" in response.body
    assert table_snapshot(demo.table) == before


def test_a_genuine_link_of_another_store_or_an_unknown_reference_is_404(
    demo: DemoStore, invoke: Invoke, traveller: time_machine.Coordinates, bought: Bought
) -> None:
    assert show(invoke, link(account_id=2)).status == 404
    assert show(invoke, link(reference="tbx-9-0a0b0c0d")).status == 404
    tampered = link().replace(REFERENCE, REFERENCE[:-1] + ("0" if REFERENCE[-1] != "0" else "1"))
    assert show(invoke, tampered).status == 404


@pytest.mark.parametrize("case", ["missing", "garbled", "other action", "expired", "other site"])
def test_a_forged_or_stale_form_is_403_and_writes_nothing(
    demo: DemoStore,
    invoke: Invoke,
    traveller: time_machine.Coordinates,
    bought: Bought,
    published: list[DomainEvent],
    case: str,
) -> None:
    published.clear()
    token = form_token_of(show(invoke, link()))  # issued for "cancel"
    headers, action = FORM, "cancel"
    if case == "missing":
        token = ""
    elif case == "garbled":
        token = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    elif case == "other action":
        action = "undo"
    elif case == "expired":
        traveller.shift(timedelta(hours=2))
    elif case == "other site":
        headers = {**FORM, "origin": "https://evil.test"}
    before = table_snapshot(demo.table)
    response = submit(invoke, link(), headers=headers, action=action, form_token=token)
    assert response.status == 403, response.body
    assert table_snapshot(demo.table) == before
    assert not published


def test_an_ended_subscription_shows_no_form_and_cannot_be_cancelled(
    demo: DemoStore, invoke: Invoke, traveller: time_machine.Coordinates
) -> None:
    seed_recurring(
        demo.table,
        NOW,
        status=RecurringStatus.CANCELLED,
        cancelled_at=NOW - timedelta(days=1),
        schedule_sk=None,
    )
    page = show(invoke, link(reference="tbx-1-0a0b0c0d"))
    assert page.status == 200
    assert "ended on 15 June 2026" in page.body
    assert "<form" not in page.body


def test_undo_after_the_period_ended_is_refused(
    demo: DemoStore, invoke: Invoke, traveller: time_machine.Coordinates, bought: Bought
) -> None:
    act(invoke, "cancel")
    traveller.shift(timedelta(days=30, seconds=1))  # the period is over; the processor has not run
    page = show(invoke, link())
    response = submit(invoke, link(), action="undo", form_token=form_token_of(page))
    assert response.status == 409, response.body
    assert stored(demo).cancel_requested_at is not None


def test_the_receipt_links_to_the_manage_page(
    demo: DemoStore, invoke: Invoke, traveller: time_machine.Coordinates, bought: Bought
) -> None:
    receipt_path = f"/checkout/{bought.basket_ident}/receipt"
    receipt = invoke(get_checkout_receipt.handler, "GET", receipt_path)
    found = re.search(r'id=manage href="?([^" >]+)', receipt.body)
    assert found, receipt.body
    target = urlsplit(urljoin(f"https://shop.test{receipt_path}", found.group(1))).path
    assert target == f"/checkout/{bought.basket_ident}/subscription"
    response = invoke(get_basket_subscription_page.handler, "GET", target)
    assert response.status == 303, response.body
    assert response.headers["location"] == f"https://shop.test{link()}"
    assert show(invoke, link()).status == 200

    line = BasketLine(package_id=10, category_id=2, ident="pkg_2_10", name="Diamond Sword")
    one_off = seed_basket(demo.table, 1, lines=[line], complete=True, transaction_id="tbx-2-0a0b0c0d")
    response = invoke(get_basket_subscription_page.handler, "GET", f"/checkout/{one_off.ident}/subscription")
    assert response.status == 404
    unpaid = seed_basket(demo.table, 1)
    assert (
        invoke(get_basket_subscription_page.handler, "GET", f"/checkout/{unpaid.ident}/subscription").status
        == 404
    )


def test_a_form_from_the_page_itself_sends_origin_null_and_is_accepted(
    demo: DemoStore, invoke: Invoke, traveller: time_machine.Coordinates, bought: Bought
) -> None:
    """The hosted pages send no referrer, so Chromium names the form's origin "null"."""
    token = form_token_of(show(invoke, link()))
    response = submit(invoke, link(), headers={**FORM, "origin": "null"}, action="cancel", form_token=token)
    assert response.status == 303, response.body
    assert stored(demo).cancel_requested_at == NOW
