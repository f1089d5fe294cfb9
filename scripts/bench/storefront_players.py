"""Players scenarios for scripts/bench_round_trips.py: auth link and page, dynamic packages,
a player's tiered categories, tier change, sidebar."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from functions.storefront import (
    create_dynamic_packages,
    get_auth_page,
    get_basket_auth_url,
    get_categories,
    get_sidebar,
    post_auth_page,
    update_tier,
)
from tests.support.baskets import seed_basket
from webstore.players import Tier
from webstore.repo.player_tiers import tier_item
from webstore.repo.users import UserRepository

ACCOUNT = 1
RETURN = "http://localhost:3000/basket"


def _basket(ctx: dict[str, Any], **fields: Any) -> str:
    return seed_basket(ctx["table"], ACCOUNT, **fields).ident


def setup(ctx: dict[str, Any]) -> None:
    demo = ctx["demo"]
    ctx["base"] = f"/api/accounts/{demo.public_token}"
    raw = f"{demo.public_token}:{demo.checkout_api_key}".encode()
    ctx["basic"] = {"authorization": "Basic " + base64.b64encode(raw).decode()}
    ctx["open_basket"] = _basket(ctx)
    ctx["player_basket"] = _basket(ctx, username="Steve", username_id=5)
    now = datetime.now(UTC)
    tier = Tier(
        id=7,
        username_id=42,
        category_id=1,
        package_id=2,
        created_at=now - timedelta(days=10),
        next_payment_date=now + timedelta(days=20),
        recurring_payment_reference="tbx-1-00000000",
    )
    ctx["table"].put(tier_item(ACCOUNT, tier))
    # A returning player: the registry already knows them.
    UserRepository(ctx["table"]).ensure("Returning")


def scenarios(ctx: dict[str, Any]) -> Iterator[tuple[str, Any, str, str, dict[str, Any]]]:
    base, basic = ctx["base"], ctx["basic"]
    open_basket, player_basket = ctx["open_basket"], ctx["player_basket"]
    form = {"content-type": "application/x-www-form-urlencoded"}
    yield (
        "getBasketAuthUrl",
        get_basket_auth_url.handler,
        "GET",
        f"{base}/baskets/{open_basket}/auth",
        {"query": {"returnUrl": RETURN}},
    )
    yield (
        "auth page (GET)",
        get_auth_page.handler,
        "GET",
        f"/auth/{open_basket}",
        {"query": {"returnUrl": RETURN}},
    )
    yield (
        "auth page (POST, returning player)",
        post_auth_page.handler,
        "POST",
        f"/auth/{open_basket}",
        {"raw_body": urlencode({"username": "Returning", "returnUrl": RETURN}), "headers": form},
    )
    yield (
        "auth page (POST, first-time player)",
        post_auth_page.handler,
        "POST",
        f"/auth/{_basket(ctx)}",
        {"raw_body": urlencode({"username": "Newcomer", "returnUrl": RETURN}), "headers": form},
    )
    packages = [{"name": f"Offer {i}", "price": 1 + i, "slug": f"offer-{i}"} for i in range(20)]
    yield (
        "createDynamicPackage (20 packages)",
        create_dynamic_packages.handler,
        "PUT",
        f"{base}/baskets/{player_basket}/dynamic-packages",
        {
            "body": {"basket_id": player_basket, "username": "Steve", "category_id": 4, "packages": packages},
            "headers": basic,
        },
    )
    yield (
        "getCategories?includePackages&basketIdent",
        get_categories.handler,
        "GET",
        f"{base}/categories",
        {"query": {"includePackages": "1", "basketIdent": player_basket}},
    )
    yield (
        "getUserTieredCategories",
        get_categories.handler,
        "GET",
        f"{base}/categories",
        {"query": {"includePackages": "1", "usernameId": "42"}, "headers": basic},
    )
    yield (
        "updateTier (downgrade)",
        update_tier.handler,
        "PATCH",
        f"{base}/tiers/7",
        {"body": {"package_id": 1}, "headers": basic},
    )
    yield "getSidebar (featured package)", get_sidebar.handler, "GET", f"{base}/sidebar", {}
    yield "getSidebar (featured, served before)", get_sidebar.handler, "GET", f"{base}/sidebar", {}
