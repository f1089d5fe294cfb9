"""getUserTieredCategories and the tier change, through their Lambda handlers (moto)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

import pytest

from functions.operator import get_payments
from functions.storefront import get_basket, get_categories, get_checkout_page, pay_checkout, update_tier
from tests.integration.operator.support import manual_payment
from tests.integration.storefront.support import base, basic
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from webstore.catalog import Package, PackageType
from webstore.players import Tier
from webstore.pricing import prorate_price
from webstore.repo.player_tiers import PlayerTierRepository
from webstore.repo.players import PlayerRepository
from webstore.repo.store import StoreRepository
from webstore.services import get_services

NOW = datetime(2026, 6, 16, 12, tzinfo=UTC)
NEXT_PAYMENT = datetime(2026, 7, 1, 12, tzinfo=UTC)  # a 30-day month period: half of it is left


@pytest.fixture
def clock(demo: DemoStore) -> Iterator[datetime]:
    services = get_services()
    services.clock = lambda: NOW
    yield NOW
    services.clock = lambda: datetime.now(UTC)


def tiered(
    invoke: Invoke,
    demo: DemoStore,
    username_id: str = "42",
    headers: dict[str, str] | None = None,
    include_packages: bool = True,
) -> Response:
    query = {"usernameId": username_id}
    if include_packages:
        query["includePackages"] = "1"
    return invoke(
        get_categories.handler,
        "GET",
        f"{base(demo)}/categories",
        query=query,
        headers=demo.basic_auth() if headers is None else headers,
    )


def ranks(response: Response) -> dict[str, Any]:
    assert response.status == 200, response.body
    return next(c for c in response.json()["data"] if c["id"] == 1)


def change(
    invoke: Invoke, demo: DemoStore, tier_id: str, package_id: Any, headers: dict[str, str] | None = None
) -> Response:
    return invoke(
        update_tier.handler,
        "PATCH",
        f"{base(demo)}/tiers/{tier_id}",
        body={"package_id": package_id},
        headers=demo.basic_auth() if headers is None else headers,
    )


# --- getUserTieredCategories --------------------------------------------------------------


def test_active_tier_and_prorate_prices(
    demo: DemoStore, invoke: Invoke, seed_tier: Callable[..., Tier], clock: datetime
) -> None:
    seed_tier(created_at=NOW - timedelta(days=45), next_payment_date=NEXT_PAYMENT)
    category = ranks(tiered(invoke, demo))
    tier = category["active_tier"]
    assert tier["id"] == 7
    assert tier["username_id"] == "42"
    assert tier["active"] is True
    assert tier["status"] == {"id": 1, "description": "active"}
    assert tier["pending_downgrade_package"] is None
    assert tier["recurring_payment_reference"] == "tbx-1-0a0b0c0d"
    assert tier["next_payment_date"].startswith("2026-07-01T12:00:00")
    assert tier["created_at"].startswith("2026-05-02")
    assert tier["package"]["id"] == 1 and tier["package"]["ident"] == "pkg_1_1"
    assert tier["package"]["category"] == {"id": 1, "name": "Ranks"}

    prices = {p["id"]: p["prorate_price"] for p in category["packages"]}
    assert prices[1] is None  # the current package
    # MVP 9.99 - VIP 4.99 = 5.00; June 1 .. July 1 is 30 days, 15 of them left.
    assert prices[2] == 2.5
    expected = prorate_price(
        Decimal("4.99"),
        Decimal("9.99"),
        now=NOW,
        period_start=datetime(2026, 6, 1, 12, tzinfo=UTC),
        period_end=NEXT_PAYMENT,
        currency="USD",
    )
    assert Decimal(str(prices[2])) == expected

    others = [c for c in tiered(invoke, demo).json()["data"] if c["id"] != 1]
    assert all(c["active_tier"] is None for c in others)
    assert all(p["prorate_price"] is None for c in others for p in c["packages"] or [])


def test_a_higher_tier_shows_zero_for_downgrades(
    demo: DemoStore, invoke: Invoke, seed_tier: Callable[..., Tier], clock: datetime
) -> None:
    seed_tier(package_id=2, next_payment_date=NEXT_PAYMENT)
    prices = {p["id"]: p["prorate_price"] for p in ranks(tiered(invoke, demo))["packages"]}
    assert prices == {1: 0.0, 2: None}


def test_pending_downgrade_and_tiers_that_ended(
    demo: DemoStore, invoke: Invoke, seed_tier: Callable[..., Tier], clock: datetime
) -> None:
    seed_tier(id=8, username_id=43, package_id=2, status_id=2, pending_downgrade_package_id=1)
    tier = ranks(tiered(invoke, demo, "43"))["active_tier"]
    assert tier["status"] == {"id": 2, "description": "pending downgrade"}
    assert tier["pending_downgrade_package"] == {"id": 1, "name": "VIP"}

    seed_tier(id=9, username_id=44, active=False, status_id=3)
    assert ranks(tiered(invoke, demo, "44"))["active_tier"] is None


def test_a_player_without_tiers(demo: DemoStore, invoke: Invoke, seed_tier: Callable[..., Tier]) -> None:
    seed_tier(username_id=42)
    category = ranks(tiered(invoke, demo, "1000"))
    assert category["active_tier"] is None
    assert all(p["prorate_price"] is None for p in category["packages"])


def test_tier_without_include_packages(
    demo: DemoStore, invoke: Invoke, seed_tier: Callable[..., Tier]
) -> None:
    seed_tier()
    category = ranks(tiered(invoke, demo, include_packages=False))
    assert category["packages"] is None
    assert category["active_tier"]["package"]["name"] == "VIP"


@pytest.mark.parametrize(
    "headers",
    [{}, {"authorization": "Bearer x"}, "wrong-key", "wrong-identifier"],
)
def test_tiers_need_basic_auth(
    demo: DemoStore, invoke: Invoke, seed_tier: Callable[..., Tier], headers: Any
) -> None:
    seed_tier()
    if headers == "wrong-key":
        headers = basic(demo.token, "nope")
    elif headers == "wrong-identifier":
        headers = basic("someone-else", demo.checkout_key)
    response = tiered(invoke, demo, headers=headers)
    assert response.status == 401
    assert "tier" not in response.body


@pytest.mark.parametrize("username_id", ["abc", "0", "-1", str(2**64)])  # up to 64 bits is fine (issue 11)
def test_bad_username_id(demo: DemoStore, invoke: Invoke, username_id: str) -> None:
    response = tiered(invoke, demo, username_id)
    assert response.status == 422
    assert response.json()["field_details"][0]["field"] == "usernameId"


# --- PATCH /tiers/{id} --------------------------------------------------------------------


def stored_tier(demo: DemoStore, tier_id: int) -> Tier:
    tier = PlayerTierRepository(demo.table).get(1, tier_id)
    assert tier is not None
    return tier


def test_downgrade_is_recorded_for_the_next_renewal_and_can_be_cancelled(
    demo: DemoStore, invoke: Invoke, seed_tier: Callable[..., Tier]
) -> None:
    seed_tier(package_id=2)
    response = change(invoke, demo, "7", 1)
    assert response.status == 200, response.body
    assert response.json() == {"success": True, "message": "The tier changes to VIP at the next renewal"}
    tier = stored_tier(demo, 7)
    assert (tier.package_id, tier.pending_downgrade_package_id, tier.status_id) == (2, 1, 2)
    assert ranks(tiered(invoke, demo))["active_tier"]["pending_downgrade_package"] == {"id": 1, "name": "VIP"}

    cancelled = change(invoke, demo, "7", 2)
    assert cancelled.status == 200
    assert "cancelled" in cancelled.json()["message"]
    tier = stored_tier(demo, 7)
    assert (tier.package_id, tier.pending_downgrade_package_id, tier.status_id) == (2, None, 1)
    assert change(invoke, demo, "7", 2).json()["message"] == "The tier is already on MVP"


def test_an_upgrade_of_a_player_the_store_does_not_know_is_paid_through_a_basket(
    demo: DemoStore, invoke: Invoke, seed_tier: Callable[..., Tier]
) -> None:
    seed_tier(package_id=1)
    response = change(invoke, demo, "7", 2)
    assert response.status == 422
    body = response.json()
    assert body["field_details"][0]["field"] == "package_id"
    assert "basket" in body["detail"] and "prorate_price" in body["detail"]
    assert stored_tier(demo, 7).pending_downgrade_package_id is None


def test_an_upgrade_without_a_saved_payment_method_answers_a_checkout_of_the_difference(
    demo: DemoStore, invoke: Invoke, clock: datetime
) -> None:
    """npm `updateTier(tierId, packageId)` / C# `UpdateTier`: PATCH with Basic auth, `{package_id}`,
    read as `{success, message}`. A tier paid without saving a method (every tier on the local
    stack; here a manual payment) has nothing to charge off-session: the answer carries a
    checkout, for the tier's player, that charges the prorated difference and moves the tier."""
    manual_payment(invoke, demo.server_secret, ign="Steve", packages=[{"id": 1}], price=4.99)
    steve = PlayerRepository(demo.table).id_by_name(1, "Steve")
    tier = ranks(tiered(invoke, demo, username_id=str(steve)))["active_tier"]
    assert tier["package"]["id"] == 1
    clock_moved = NOW + timedelta(days=15)
    get_services().clock = lambda: clock_moved  # half-way through the month: half the difference
    response = change(invoke, demo, str(tier["id"]), 2)
    assert response.status == 200, response.body
    body = response.json()
    assert body["success"] is False and set(body) == {"success", "message", "links"}
    url = body["links"]["checkout"]
    assert url in body["message"] and "/checkout/" in url
    ident = url.rsplit("/", 1)[1]
    basket = invoke(get_basket.handler, "GET", f"{base(demo)}/baskets/{ident}").json()["data"]
    assert basket["username"] == "Steve" and [p["id"] for p in basket["packages"]] == [2]
    due = re.search(r"\((\d+\.\d\d) USD\)", body["message"])
    assert due is not None and Decimal("0") < Decimal(due.group(1)) < Decimal("5.00")
    assert stored_tier(demo, tier["id"]).package_id == 1  # moves when the checkout is paid

    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    key = re.search(r'name=attempt_key value="([^"]+)"', page.body)
    assert key is not None
    form = {
        "subscription_consent": "yes",
        "attempt_key": key.group(1),
        "card_number": "4242 4242 4242 4242",
        "amount_due": "9.99",
    }
    paid = invoke(
        pay_checkout.handler,
        "POST",
        f"/checkout/{ident}/pay",
        raw_body=urlencode(form),
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert paid.status in (200, 303), paid.body
    payments = invoke(
        get_payments.handler, "GET", "/payments", headers={"X-Tebex-Secret": demo.server_secret}
    )
    assert payments.json()[0]["amount"] == due.group(1)  # charged the difference the answer named
    assert stored_tier(demo, tier["id"]).package_id == 2


@pytest.fixture
def one_off_rank(demo: DemoStore) -> int:
    """A single (non-subscription) package in the tiered category, as the import writes it."""
    now = datetime.now(UTC)
    package = Package(
        id=3,
        category_id=1,
        name="Day pass",
        price=Decimal("0.99"),
        type=PackageType.SINGLE,
        created_at=now,
        updated_at=now,
    )
    demo.table.put(StoreRepository(demo.table).entity_item(1, package))
    return package.id


@pytest.mark.parametrize(
    ("package_id", "detail"),
    [(10, "tier's category"), (9999, "not found"), ("three", ""), (0, ""), ("one_off", "subscription")],
)
def test_wrong_package_is_422(
    demo: DemoStore,
    invoke: Invoke,
    seed_tier: Callable[..., Tier],
    one_off_rank: int,
    package_id: Any,
    detail: str,
) -> None:
    seed_tier(package_id=2)
    response = change(invoke, demo, "7", one_off_rank if package_id == "one_off" else package_id)
    assert response.status == 422
    assert response.json()["field_details"][0]["field"] == "package_id"
    assert detail in response.json()["detail"]
    assert stored_tier(demo, 7).status_id == 1


@pytest.mark.parametrize("tier_id", ["999", "abc", "0", "99999999999"])
def test_unknown_tier_is_404(
    demo: DemoStore, invoke: Invoke, seed_tier: Callable[..., Tier], tier_id: str
) -> None:
    seed_tier()
    response = change(invoke, demo, tier_id, 1)
    assert response.status == 404
    assert response.json()["detail"] == "Tier not found"


def test_ended_tier_cannot_change(demo: DemoStore, invoke: Invoke, seed_tier: Callable[..., Tier]) -> None:
    seed_tier(package_id=2, active=False, status_id=4)
    assert change(invoke, demo, "7", 1).status == 422


@pytest.mark.parametrize("headers", [{}, "wrong"])
def test_tier_change_needs_basic_auth(
    demo: DemoStore, invoke: Invoke, seed_tier: Callable[..., Tier], headers: Any
) -> None:
    seed_tier(package_id=2)
    response = change(
        invoke, demo, "7", 1, headers=basic(demo.token, "nope") if headers == "wrong" else headers
    )
    assert response.status == 401
    assert stored_tier(demo, 7).pending_downgrade_package_id is None


def test_change_is_conditional_on_the_tier_read(demo: DemoStore, seed_tier: Callable[..., Tier]) -> None:
    """A renewal that moved the tier meanwhile wins over a change based on the old read."""
    from webstore.errors import Conflict

    read = seed_tier(package_id=2)
    seed_tier(package_id=1)  # fulfilment renewed onto VIP after our read
    with pytest.raises(Conflict):
        PlayerTierRepository(demo.table).schedule_change(1, read, 1)
