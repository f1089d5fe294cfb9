"""A checkout claim left by a crashed attempt: taken over once older than its timeout, never before."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from functions.storefront import get_checkout_page
from tests.integration.storefront.test_checkout import attempt_key_of, basket_json, new_basket, pay, payments
from tests.support.clock import Clock
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore.checkout import checkout
from webstore.services import get_services
from webstore.storefront.baskets import CHECKOUT_CLAIM_TIMEOUT


@pytest.fixture
def clock(demo: DemoStore) -> Clock:
    controlled = Clock(datetime(2026, 3, 15, 12, 0, 0, tzinfo=UTC))
    get_services().clock = controlled
    return controlled


def crash_after_the_claim(
    invoke: Invoke, demo: DemoStore, monkeypatch: pytest.MonkeyPatch, ident: str
) -> None:
    """An attempt that claimed the basket and died before charging."""
    key = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))

    def crash(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("the Lambda died")

    with monkeypatch.context() as patched:
        patched.setattr(checkout, "gateway_for", crash)
        assert pay(invoke, ident, key).status == 500
    assert basket_json(invoke, demo, ident)["complete"] is False


def test_a_stale_claim_of_a_crashed_attempt_is_taken_over(
    demo: DemoStore, invoke: Invoke, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    ident = new_basket(invoke, demo)
    crash_after_the_claim(invoke, demo, monkeypatch, ident)
    clock.advance((CHECKOUT_CLAIM_TIMEOUT + timedelta(seconds=1)).total_seconds())
    key = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
    paid = pay(invoke, ident, key)
    assert paid.status == 303, paid.body
    assert basket_json(invoke, demo, ident)["complete"] is True
    assert len(payments(invoke, demo)) == 1


def test_a_fresh_claim_is_not_taken_over(
    demo: DemoStore, invoke: Invoke, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    ident = new_basket(invoke, demo)
    crash_after_the_claim(invoke, demo, monkeypatch, ident)
    clock.advance((CHECKOUT_CLAIM_TIMEOUT - timedelta(seconds=1)).total_seconds())
    key = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
    refused = pay(invoke, ident, key)
    assert refused.status == 409, refused.body
    assert basket_json(invoke, demo, ident)["complete"] is False
    assert payments(invoke, demo) == []
