"""Shop scenarios for scripts/bench_round_trips.py: every page for a new visitor and for a
player with a basket, at the demo's size and with 100 and 1,000 packages (docs/shop.md)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from functions.shop import get_basket, get_category, get_giftcard, get_home, get_login, get_package, get_page
from webstore.basket import Basket
from webstore.catalog import GiftCard, Package
from webstore.repo.account import AccountRepository
from webstore.repo.baskets import BasketRepository
from webstore.repo.store import StoreRepository

CARD = "BENCH-0000-0000-0001"
PAGES = [
    ("home", get_home.handler, "/"),
    ("category (tiered)", get_category.handler, "/category/ranks"),
    ("category (grid)", get_category.handler, "/category/items"),
    ("package", get_package.handler, "/package/11"),
    ("custom page", get_page.handler, "/page/rules"),
    ("basket", get_basket.handler, "/basket"),
    ("log in", get_login.handler, "/login"),
]
SIZES = (100, 1_000)


def setup(ctx: dict[str, Any]) -> None:
    now = datetime.now(UTC)
    basket = Basket(
        ident=f"1-{'b' * 32}", account_id=1, currency="USD", username="Notch", username_id=1,
        created_at=now, updated_at=now,
    )  # fmt: skip
    BasketRepository(ctx["table"]).create(basket)
    card = GiftCard(
        id=90, card_number=CARD, balance=Decimal("25.00"), starting_balance=Decimal("50.00"), currency="USD",
        created_at=now,
    )  # fmt: skip
    ctx["table"].put(AccountRepository(ctx["table"]).giftcard_item(1, card))
    ctx["shop_cookie"] = f"shop_basket={basket.ident}; shop_player=1"


def _add_packages(ctx: dict[str, Any], total: int) -> None:
    """Packages up to `total` in the demo's Items category (ids from 1000)."""
    repository, table = StoreRepository(ctx["table"]), ctx["table"]
    have = ctx.setdefault("shop_added", 0)
    now = datetime.now(UTC)
    for n in range(have, total):
        package = Package(
            id=1000 + n, category_id=2, name=f"Bench package {n}", slug=f"bench-{n}", price=Decimal("1.99"),
            description="<p>" + "A package of the benchmark. " * 8 + "</p>", created_at=now, updated_at=now,
        )  # fmt: skip
        table.put(repository.entity_item(1, package))
    ctx["shop_added"] = total


def scenarios(ctx: dict[str, Any]) -> Iterator[tuple[str, Any, str, str, dict[str, Any]]]:
    for label, handler, path in PAGES:
        yield f"shop {label}", handler, "GET", path, {}
        yield f"shop {label} (player)", handler, "GET", path, {"headers": {"cookie": ctx["shop_cookie"]}}
    # A guarded look-up: the address's count (a write), then the page's read with the card
    # beside it (docs/shop.md, "Round trips").
    yield "shop gift-card balance", get_giftcard.handler, "GET", "/gift-card", {"query": {"code": CARD}}
    for size in SIZES:
        _add_packages(ctx, size)
        for label, handler, path in PAGES[:3]:
            yield f"shop {label} +{size} packages", handler, "GET", path, {}
