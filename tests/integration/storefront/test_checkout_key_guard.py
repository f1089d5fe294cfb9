"""The brute-force guard on Basic auth (issue 10, item 14): wrong checkout keys are counted per
caller address on every storefront route that checks them, as wrong server secrets are."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from functions.operator import get_information
from functions.storefront import create_basket, create_dynamic_packages, get_categories, update_tier
from tests.integration.storefront.support import base, basic
from tests.support.clock import Clock
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from webstore import keys
from webstore.basket import Basket
from webstore.failure_guard import CHECKOUT_KEY, SERVER_SECRET, blocked
from webstore.services import get_services

ALLOWED = 3
WINDOW = 120
GUESSER, BYSTANDER = "198.51.100.7", "198.51.100.8"

Send = Callable[[dict[str, str], str], Response]


@pytest.fixture
def clock(demo: DemoStore, monkeypatch: pytest.MonkeyPatch) -> Clock:
    services = get_services()
    monkeypatch.setattr(services.settings, "secret_failures_allowed", ALLOWED)
    monkeypatch.setattr(services.settings, "secret_failure_window_seconds", WINDOW)
    controlled = Clock(datetime(2026, 6, 16, 12, tzinfo=UTC))
    monkeypatch.setattr(services, "clock", controlled)
    return controlled


@pytest.fixture(params=["getCategories", "updateTier", "createBasket", "createDynamicPackage"])
def send(
    request: pytest.FixtureRequest,
    demo: DemoStore,
    invoke: Invoke,
    seed_tier: Callable[..., object],
    make_basket: Callable[..., Basket],
) -> Send:
    """One storefront route that checks Basic auth: (headers, caller address) → response."""
    prefix = base(demo)
    if request.param == "getCategories":
        return lambda headers, ip: invoke(
            get_categories.handler,
            "GET",
            f"{prefix}/categories",
            query={"usernameId": "42"},
            headers=headers,
            source_ip=ip,
        )
    if request.param == "updateTier":
        seed_tier(package_id=2)
        return lambda headers, ip: invoke(
            update_tier.handler,
            "PATCH",
            f"{prefix}/tiers/7",
            body={"package_id": 1},
            headers=headers,
            source_ip=ip,
        )
    if request.param == "createBasket":
        return lambda headers, ip: invoke(
            create_basket.handler, "POST", f"{prefix}/baskets", body={}, headers=headers, source_ip=ip
        )
    basket = make_basket(username="Steve", username_id=5)
    offer = {"name": "Offer", "price": 2.5, "slug": "offer-1"}
    body = {"basket_id": basket.ident, "username": "Steve", "category_id": 4, "packages": [offer]}
    return lambda headers, ip: invoke(
        create_dynamic_packages.handler,
        "PUT",
        f"{prefix}/baskets/{basket.ident}/dynamic-packages",
        body=body,
        headers=headers,
        source_ip=ip,
    )


def test_guessing_checkout_keys_blocks_the_address_even_for_the_right_key(
    demo: DemoStore, send: Send, clock: Clock
) -> None:
    right = demo.basic_auth()
    wrong = [send(basic(demo.token, f"guess-{i}"), GUESSER) for i in range(ALLOWED)]
    assert [r.status for r in wrong] == [401] * ALLOWED
    assert all(r.headers["www-authenticate"].startswith("Basic") for r in wrong)

    blocked_now = send(basic(demo.token, "one-more-guess"), GUESSER)
    assert blocked_now.status == 429
    assert 0 < int(blocked_now.headers["retry-after"]) <= WINDOW
    assert "checkout keys" in blocked_now.body
    assert send(right, GUESSER).status == 429  # blocked while the window lasts
    assert send(right, BYSTANDER).status == 200  # only that address
    blocked.clear()  # another instance (no in-process memory) reads the mark from the table
    assert send(right, GUESSER).status == 429

    clock.advance(WINDOW + 1)
    assert send(right, GUESSER).status == 200
    assert send(basic(demo.token, "again"), GUESSER).status == 401  # a new window counts from one


def test_a_right_key_is_not_counted_and_the_counters_are_their_own(
    demo: DemoStore, invoke: Invoke, send: Send, clock: Clock
) -> None:
    for _ in range(ALLOWED + 2):
        assert send(demo.basic_auth(), GUESSER).status == 200
    assert demo.table.get(keys.throttle_key(CHECKOUT_KEY.scope, GUESSER)) is None
    for i in range(ALLOWED + 1):
        send(basic(demo.token, f"guess-{i}"), GUESSER)
    # Wrong checkout keys do not block the address's server secret, nor the other way round.
    assert demo.table.get(keys.throttle_key(SERVER_SECRET.scope, GUESSER)) is None
    information = invoke(
        get_information.handler,
        "GET",
        "/information",
        headers={"X-Tebex-Secret": demo.server_secret},
        source_ip=GUESSER,
    )
    assert information.status == 200
