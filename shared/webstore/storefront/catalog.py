"""Storefront reads of the catalog: store, pages, categories, packages.

Each use case is one repository read (one round trip); a `basketIdent` or `usernameId`
adds the basket or the player's tiers, fetched in parallel with the catalog.
"""

from __future__ import annotations

import hmac
from typing import TypeVar

from webstore import keys
from webstore.basket import Basket
from webstore.catalog import Category, Package, Store
from webstore.db import start_read
from webstore.errors import NotFound
from webstore.players import TIER_STATUSES, Tier
from webstore.pricing import PricingContext, billing_period_start, package_price, price_of, prorate_price
from webstore.repo.baskets import BasketRepository
from webstore.repo.player_tiers import ONGOING_STATUSES, PlayerTierRepository
from webstore.repo.store import StoreRepository, StoreView
from webstore.services import Services
from webstore.storefront import schemas
from webstore.storefront.credentials import Credentials, check_checkout_credentials, require_present

T = TypeVar("T")


def verified(store: Store, public_token: str) -> Store:
    """The token names the account; this proves it is the store's current token."""
    if not hmac.compare_digest(store.public_token, public_token):
        raise NotFound("Store not found")
    return store


def load_catalog(services: Services, public_token: str, *, with_packages: bool) -> StoreView:
    view = StoreRepository(services.table).catalog(keys.account_of(public_token), with_packages=with_packages)
    verified(view.store, public_token)
    return view


def load_catalog_and_basket(
    services: Services, public_token: str, basket_ident: str | None, *, with_packages: bool = True
) -> tuple[StoreView, Basket | None]:
    """The catalog and, when named, the basket: two reads issued together."""
    if not basket_ident:
        return load_catalog(services, public_token, with_packages=with_packages), None
    basket_future = start_read(_basket_of_store, services, public_token, basket_ident)
    view = load_catalog(services, public_token, with_packages=with_packages)
    return view, basket_future.result()


def _basket_of_store(services: Services, public_token: str, ident: str) -> Basket:
    basket = BasketRepository(services.table).get(ident)
    if basket.account_id != keys.account_of(public_token):
        raise NotFound("Basket not found")
    return basket


# --- views ---------------------------------------------------------------------------------


def iso(value: object) -> str:
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


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


def package_view(package: Package, view: StoreView, ctx: PricingContext) -> schemas.Package:
    category = view.category(package.category_id)
    price = package_price(package, ctx)
    return schemas.Package(
        id=package.id,
        ident=package.ident,
        name=package.name,
        description=package.description,
        image=package.image,
        type=package.type.value,
        category=schemas.CategoryRef(id=package.category_id, name=category.name if category else ""),
        base_price=price.base_price,
        sales_tax=price.sales_tax,
        total_price=price.total_price,
        currency=view.store.currency,
        discount=price.discount,
        disable_quantity=package.disable_quantity,
        disable_gifting=package.disable_gifting or not view.store.supports_gifting,
        expiration_date=iso(package.expiration_date) if package.expiration_date else None,
        media=[schemas.PackageMedia(**m.model_dump()) for m in package.media],
        order=package.order,
        slug=package.slug or str(package.id),
        user_limit=package.user_limit,
        creator_meta_data=package.creator_meta_data,
        options=package.options,
        variables=package.variables,
        created_at=iso(package.created_at),
        updated_at=iso(package.updated_at),
    )


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
                variables=[],
                created_at=iso(basket.created_at),
                updated_at=iso(basket.updated_at),
            )
        )
    return out


def visible_packages(view: StoreView) -> list[Package]:
    return sorted((p for p in view.packages if not p.disabled), key=lambda p: (p.order, p.id))


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
                for p in visible_packages(view)
                if p.category_id == category.id
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
    package = view.package(tier.package_id)
    if package is None:
        return None
    pending_id = tier.pending_downgrade_package_id
    pending = view.package(pending_id) if pending_id else None
    return schemas.Tier(
        id=tier.id,
        created_at=iso(tier.created_at),
        username_id=str(tier.username_id),
        package=package_view(package, view, ctx),
        active=tier.active,
        recurring_payment_reference=tier.recurring_payment_reference,
        next_payment_date=iso(tier.next_payment_date) if tier.next_payment_date else None,
        status=schemas.TierStatus(
            id=tier.status_id, description=TIER_STATUSES.get(tier.status_id, "unknown")
        ),
        pending_downgrade_package=schemas.PendingDowngrade(
            id=pending_id, name=pending.name if pending else ""
        )
        if pending_id
        else None,
    )


def with_prorate_price(
    shown: schemas.Package, package: Package, tier: Tier | None, view: StoreView, ctx: PricingContext
) -> schemas.Package:
    """`prorate_price` on the other packages of a category where the player has a tier."""
    current = view.package(tier.package_id) if tier else None
    if tier is None or current is None or package.id == current.id:
        return shown
    period_end = tier.next_payment_date
    period_start = (
        billing_period_start(period_end, current.expiry_length, current.expiry_period) if period_end else None
    )
    shown.prorate_price = prorate_price(
        current.price,
        package.price,
        now=ctx.now,
        period_start=period_start,
        period_end=period_end,
        currency=ctx.currency,
    )
    return shown


def ongoing_tiers_by_category(tiers: list[Tier]) -> dict[int, Tier]:
    """A player's current tier per category (the newest ongoing one, should there be several)."""
    current: dict[int, Tier] = {}
    for tier in sorted(tiers, key=lambda t: t.created_at):
        if tier.active and tier.status_id in ONGOING_STATUSES:
            current[tier.category_id] = tier
    return current


def pricing_context(services: Services, view: StoreView) -> PricingContext:
    return PricingContext(store=view.store, sales=view.sales, now=services.now())


def find_by_id_or_slug(items: list[T], id_or_slug: str, what: str) -> T:
    for item in items:
        if str(getattr(item, "id", "")) == id_or_slug or getattr(item, "slug", None) == id_or_slug:
            return item
    raise NotFound(f"{what} not found")


# --- use cases ----------------------------------------------------------------------------


def get_webstore(services: Services, public_token: str) -> schemas.Webstore:
    store = StoreRepository(services.table).store(keys.account_of(public_token))
    return webstore_view(verified(store, public_token))


def get_pages(services: Services, public_token: str) -> list[schemas.CMSPage]:
    view = StoreRepository(services.table).pages(keys.account_of(public_token))
    verified(view.store, public_token)
    return [
        schemas.CMSPage(
            id=p.id,
            created_at=iso(p.created_at),
            updated_at=iso(p.updated_at),
            account_id=view.store.id,
            title=p.title,
            slug=p.slug,
            private=p.private,
            hidden=p.hidden,
            disabled=p.disabled,
            sequence=p.sequence,
            content=p.content,
        )
        for p in sorted(view.pages, key=lambda p: p.id)
        if not p.disabled
    ]


def list_packages(
    services: Services, public_token: str, basket_ident: str | None = None
) -> list[schemas.Package]:
    view, basket = load_catalog_and_basket(services, public_token, basket_ident)
    ctx = pricing_context(services, view)
    out = [package_view(p, view, ctx) for p in visible_packages(view)]
    if basket:
        for category in view.categories:
            if category.dynamic:
                out.extend(dynamic_package_views(basket, category, view, ctx))
    return out


def get_package(
    services: Services, public_token: str, id_or_slug: str, basket_ident: str | None = None
) -> schemas.Package:
    view, basket = load_catalog_and_basket(services, public_token, basket_ident)
    ctx = pricing_context(services, view)
    if basket:
        for category in view.categories:
            if category.dynamic:
                for dyn in dynamic_package_views(basket, category, view, ctx):
                    if id_or_slug in (dyn.ident, dyn.slug, str(dyn.id)):
                        return dyn
    parsed = keys.parse_package_ident(id_or_slug)
    if parsed and parsed[0] == "pkg":
        id_or_slug = str(parsed[2])
    package = find_by_id_or_slug(visible_packages(view), id_or_slug, "Package")
    return package_view(package, view, ctx)


def _ordered(categories: list[Category]) -> list[Category]:
    return sorted(categories, key=lambda c: (c.order, c.id))


def get_categories(
    services: Services,
    public_token: str,
    *,
    include_packages: bool,
    basket_ident: str | None = None,
    username_id: int | None = None,
    credentials: Credentials | None = None,
) -> list[schemas.Category]:
    """Categories; with `username_id` (Basic auth), the player's active tiers and prorate prices.

    The catalog Query, the basket GetItem and the tiers' GSI1 Query are issued together.
    """
    if username_id is None:
        view, basket = load_catalog_and_basket(
            services, public_token, basket_ident if include_packages else None, with_packages=include_packages
        )
        tiers: dict[int, Tier] = {}
    else:
        present = require_present(credentials)
        account_id = keys.account_of(public_token)
        tiers_future = start_read(PlayerTierRepository(services.table).of_player, account_id, username_id)
        # Tiers carry their full Package, so the packages are read even without includePackages.
        view, basket = load_catalog_and_basket(
            services, public_token, basket_ident if include_packages else None, with_packages=True
        )
        check_checkout_credentials(view.store, present)
        tiers = ongoing_tiers_by_category(tiers_future.result())
    ctx = pricing_context(services, view)
    return [
        category_view(
            c,
            view,
            ctx,
            with_packages=include_packages,
            basket=basket,
            tier=tiers.get(c.id) if c.tiered else None,
        )
        for c in _ordered(view.categories)
    ]


def get_category(
    services: Services,
    public_token: str,
    id_or_slug: str,
    *,
    include_packages: bool,
    basket_ident: str | None = None,
) -> schemas.Category:
    view, basket = load_catalog_and_basket(
        services, public_token, basket_ident if include_packages else None, with_packages=include_packages
    )
    category = find_by_id_or_slug(view.categories, id_or_slug, "Category")
    return category_view(
        category, view, pricing_context(services, view), with_packages=include_packages, basket=basket
    )
