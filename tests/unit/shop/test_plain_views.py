"""The shop's pages build the storefront's views as plain data (`storefront.shown`), without its
wire models: the same computation, and its JSON equals the storefront's (the demo store, priced
during its sale, with sidebar stats and a tier held)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from tests.unit.payments.support import NOW, demo_view
from webstore.players import RecentPayment, StoreStats, Tier
from webstore.pricing import PricingContext
from webstore.storefront.shown import SidebarData, as_json, package_data, prorate_price, tier_data
from webstore.storefront.views import SidebarViews, category_view, package_view, tier_view


def test_every_package_is_the_storefront_package() -> None:
    view = demo_view()
    ctx = PricingContext(store=view.store, sales=view.store.sales, now=NOW)
    assert view.packages and any(p.variable_options for p in view.packages) and view.store.sales
    for package in view.packages:
        assert as_json(package_data(package, view, ctx)) == package_view(package, view, ctx).model_dump(
            mode="json"
        )


def test_a_tier_and_its_upgrade_prices_are_the_storefronts() -> None:
    view = demo_view()
    ctx = PricingContext(store=view.store, sales=view.store.sales, now=NOW)
    vip, mvp = view.package(1), view.package(2)
    assert vip and mvp and vip.category_id == mvp.category_id
    tier = Tier(
        id=7,
        username_id=42,
        category_id=vip.category_id,
        package_id=mvp.id,
        created_at=NOW - timedelta(days=10),
        next_payment_date=NOW + timedelta(days=20),
        pending_downgrade_package_id=vip.id,
    )
    shown = tier_view(tier, view, ctx)
    assert shown is not None
    assert as_json(tier_data(tier, view, ctx)) == shown.model_dump(mode="json")
    category = view.category(vip.category_id)
    assert category
    listed = category_view(category, view, ctx, with_packages=True, tier=tier).packages or []
    prices = {p.id: p.prorate_price for p in listed}
    assert prices[mvp.id] is None and prices[vip.id] is not None
    assert {p.id: prorate_price(p, tier, view, ctx) for p in (vip, mvp)} == prices
    gone = tier.model_copy(update={"package_id": 999})
    assert tier_data(gone, view, ctx) is None and tier_view(gone, view, ctx) is None


def test_the_sidebar_is_the_storefronts() -> None:
    view = demo_view()
    view.stats = StoreStats(
        month=NOW.strftime("%Y-%m"),
        month_revenue=Decimal("123.4"),
        top_customer={"username": "Notch", "platform_id": "abc", "total": "50.5"},
        recent_payments=[
            RecentPayment(username="Notch", package="VIP", amount=Decimal("4.99"), currency="EUR", date=NOW)
        ],
    ).model_dump()
    ctx = PricingContext(store=view.store, sales=view.store.sales, now=NOW)
    featured = {p.id: p for p in view.packages}
    plain = as_json(SidebarData(view, featured, ctx).modules())
    wire = [m.model_dump(mode="json") for m in SidebarViews(view, featured, ctx).modules()]
    assert plain == wire
    assert {m["type"] for m in plain} >= {"textbox", "community_goal", "featured_package", "top_customer"}
    assert plain[0]["data"] and any(m["data"].get("payments") for m in plain)
