"""The storefront interface's view mappers: domain models -> the wire shapes of `schemas`.

Pure: every input is passed in (the store view, the pricing context, settings).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from webstore import keys
from webstore.catalog import Category, Package, Page, Store
from webstore.players import Tier
from webstore.pricing import PricingContext, price_of
from webstore.repo.store import StoreView
from webstore.storefront import schemas
from webstore.storefront.shown import (
    MAX_RECENT_PAYMENTS,
    SidebarData,
    category_packages,
    int_setting,
    iso,
    package_data,
    prorate_price,
    server_address,
    tier_data,
    visible_packages,
)

if TYPE_CHECKING:  # the basket's module is loaded by the routes that read a basket
    from webstore.basket import Basket

__all__ = [  # the plain computations, for the modules that map through here
    "MAX_RECENT_PAYMENTS",
    "int_setting",
    "server_address",
    "visible_packages",
]

# --- the store and its pages ---------------------------------------------------------------


def webstore_view(store: Store) -> schemas.Webstore:
    return schemas.Webstore(
        id=store.id,
        description=store.description,
        name=store.name,
        webstore_url=store.webstore_url,
        currency=store.currency,
        lang=store.lang,
        logo=store.logo,
        platform_type=store.platform_type,
        platform_type_id=store.platform_type_id,
        disabled=store.disabled,
        created_at=iso(store.created_at),
        supports_usernames=store.supports_usernames,
        supports_gifting=store.supports_gifting,
    )


def page_views(store: Store, pages: list[Page]) -> list[schemas.CMSPage]:
    """The enabled pages, by id."""
    return [
        schemas.CMSPage(
            id=p.id,
            created_at=iso(p.created_at),
            updated_at=iso(p.updated_at),
            account_id=store.id,
            title=p.title,
            slug=p.slug,
            private=p.private,
            hidden=p.hidden,
            disabled=p.disabled,
            sequence=p.sequence,
            content=p.content,
        )
        for p in sorted(pages, key=lambda p: p.id)
        if not p.disabled
    ]


# --- packages and categories ---------------------------------------------------------------


def package_view(package: Package, view: StoreView, ctx: PricingContext) -> schemas.Package:
    return schemas.Package.model_validate(package_data(package, view, ctx))


def dynamic_package_views(
    basket: Basket, category: Category, view: StoreView, ctx: PricingContext
) -> list[schemas.Package]:
    """A basket's dynamic packages in the Package shape (COMPAT: DynamicPackage = Package fields)."""
    out = []
    for dyn in basket.dynamic_packages:
        if dyn.category_id != category.id:
            continue
        price = price_of(dyn.price, dyn.id, dyn.category_id, ctx)
        out.append(
            schemas.Package(
                id=dyn.id,
                ident=keys.package_ident(dyn.category_id, dyn.id, dynamic=True),
                name=dyn.name,
                description=dyn.description,
                image=dyn.image_url,
                type="single",
                category=schemas.CategoryRef(id=category.id, name=category.name),
                base_price=price.base_price,
                sales_tax=price.sales_tax,
                total_price=price.total_price,
                currency=view.store.currency,
                discount=price.discount,
                disable_quantity=True,
                disable_gifting=True,
                expiration_date=None,
                media=[],
                order=0,
                slug=dyn.slug,
                user_limit=0,
                creator_meta_data=dict(dyn.custom),
                options=[],
                created_at=iso(basket.created_at),
                updated_at=iso(basket.updated_at),
            )
        )
    return out


def category_view(
    category: Category,
    view: StoreView,
    ctx: PricingContext,
    *,
    with_packages: bool,
    basket: Basket | None = None,
    parents: bool = True,
    tier: Tier | None = None,
) -> schemas.Category:
    parent = view.category(category.parent_id) if category.parent_id else None
    packages: list[schemas.Package] | None = None
    if with_packages:
        if category.dynamic:
            packages = dynamic_package_views(basket, category, view, ctx) if basket else []
        else:
            packages = [
                with_prorate_price(package_view(p, view, ctx), p, tier, view, ctx)
                for p in category_packages(category, view)
            ]
    return schemas.Category(
        id=category.id,
        name=category.name,
        slug=category.slug,
        parent=category_view(parent, view, ctx, with_packages=False, parents=False)
        if parent and parents
        else None,
        tiered=category.tiered,
        active_tier=tier_view(tier, view, ctx) if tier else None,
        description=category.description,
        packages=packages,
        order=category.order,
        display_type=category.display_type,
        image_url=category.image_url,
        dynamic=category.dynamic,
    )


def tier_view(tier: Tier, view: StoreView, ctx: PricingContext) -> schemas.Tier | None:
    """SPEC's Tier; None when its package is no longer in the catalog (nothing to show)."""
    data = tier_data(tier, view, ctx)
    return schemas.Tier.model_validate(data) if data is not None else None


def with_prorate_price(
    shown: schemas.Package, package: Package, tier: Tier | None, view: StoreView, ctx: PricingContext
) -> schemas.Package:
    """`prorate_price` on the other packages of a category where the player has a tier."""
    price = prorate_price(package, tier, view, ctx)
    if price is not None:
        shown.prorate_price = price
    return shown


# --- baskets -------------------------------------------------------------------------------


def auth_link_view(store: Store, url: str) -> schemas.AuthLink:
    """The basket's auth link, named after the store's game (COMPAT)."""
    return schemas.AuthLink(name=store.game_type or store.platform_type, url=url)


# --- the sidebar ---------------------------------------------------------------------------


MODULE_DATA: dict[str, type[schemas.Wire]] = {
    "top_customer": schemas.TopCustomer,
    "recent_payments": schemas.RecentPayments,
    "community_goal": schemas.Goal,
    "payment_goal": schemas.PaymentGoal,
    "textbox": schemas.TextBox,
    "featured_package": schemas.FeaturedPackage,
    "giftcard_balance": schemas.GiftCardBalance,
    "server_status": schemas.ServerStatus,
}


class SidebarViews:
    """The sidebar's modules as the wire's `schemas.Module` (their data: `SidebarData`)."""

    def __init__(self, view: StoreView, featured: dict[int, Package], ctx: PricingContext) -> None:
        self.plain = SidebarData(view, featured, ctx)

    def modules(self) -> list[schemas.Module]:
        return [
            schemas.Module.model_validate(m | {"data": MODULE_DATA[m["type"]].model_validate(m["data"])})
            for m in self.plain.modules()
        ]
