"""Manual payments keep money exact and limits whole (issue 10, items 4 and 6)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from functions.operator import create_payment
from tests.integration.operator.support import secret_headers
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore import contention, keys
from webstore.errors import Conflict, Invalid
from webstore.payments import recording
from webstore.payments.order import Order, OrderLine
from webstore.services import get_services


def payment_count(demo: DemoStore) -> int:
    item = demo.table.get(keys.key(keys.account_pk(1), keys.SEQUENCES_ITEM))
    return int((item or {}).get("payment", 0))


@pytest.mark.parametrize("price", [0.001, 2.505, 1.0001])
def test_a_price_finer_than_the_currency_is_refused_not_rounded(
    demo: DemoStore, invoke: Invoke, price: str
) -> None:
    response = invoke(
        create_payment.handler,
        "POST",
        "/payments",
        headers=secret_headers(demo.server_secret),
        body={"ign": "Steve", "packages": [{"id": 10}], "price": price},
    )
    assert response.status == 422, response.body
    assert "price" in response.json()["error_message"]
    assert payment_count(demo) == 0


def test_a_price_with_trailing_zeros_is_exact_and_accepted(demo: DemoStore, invoke: Invoke) -> None:
    response = invoke(
        create_payment.handler,
        "POST",
        "/payments",
        raw_body='{"ign": "Steve", "packages": [{"id": 10}], "price": 2.5000}',
        headers={**secret_headers(demo.server_secret), "content-type": "application/json"},
    )
    assert response.status == 200, response.body
    assert response.json()["amount"] == "2.50"


def test_a_limited_package_listed_twice_in_a_manual_payment_is_refused(
    demo: DemoStore, invoke: Invoke
) -> None:
    """Pet Unlock (12) is limited to one per player."""
    response = invoke(
        create_payment.handler,
        "POST",
        "/payments",
        headers=secret_headers(demo.server_secret),
        body={"ign": "Pat", "packages": [{"id": 12}, {"id": 12}], "price": 6},
    )
    assert response.status == 422, response.body
    assert "per player" in response.json()["error_message"]
    assert payment_count(demo) == 0


def test_an_order_giving_one_player_a_limited_package_twice_is_refused(demo: DemoStore) -> None:
    """Own line plus a gift to oneself: one receiving player, two units of a one-per-player package."""
    order = Order(
        account_id=1,
        idempotency_key="twice-to-pat",
        username="Pat",
        lines=[
            OrderLine(package_id=12, paid_price=Decimal("3.00")),
            OrderLine(package_id=12, paid_price=Decimal("3.00"), gift_username="pat"),
        ],
        price_paid=Decimal("6.00"),
        currency="USD",
    )
    with pytest.raises(Invalid, match="per player"):
        recording.fulfil(get_services(), order)
    assert payment_count(demo) == 0


def test_fulfilment_gives_up_on_contention_after_its_time_budget(
    demo: DemoStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Retries are bounded in time, not only in count: the caller answers (and a checkout
    refunds) well inside the function's timeout."""
    from webstore.db import Contention, Transaction

    tries: list[int] = []
    clock = iter(range(0, 10_000, 3))  # every look at the clock: 3 s later

    def contended(self: Transaction) -> None:
        tries.append(1)
        raise Contention(["ConditionalCheckFailed"])

    monkeypatch.setattr(Transaction, "commit", contended)
    monkeypatch.setattr(contention.time, "sleep", lambda seconds: None)
    monkeypatch.setattr(contention.time, "monotonic", lambda: float(next(clock)))
    with pytest.raises(Conflict, match="busy"):
        recording.fulfil(
            get_services(),
            Order(
                account_id=1,
                idempotency_key="contended",
                username="Steve",
                lines=[OrderLine(package_id=10, paid_price=Decimal("2.50"))],
                price_paid=Decimal("2.50"),
                currency="USD",
            ),
        )
    assert 1 < len(tries) <= 4  # 8 s at 3 s a try, far below the policy's attempts
    assert contention.ATTEMPTS > 4 and contention.TIME_BUDGET_SECONDS == 8
