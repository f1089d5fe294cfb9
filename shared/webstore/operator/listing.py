"""The in-game `/buy` menu (GET /listing): top categories, each with its subcategories, and
the packages for sale in each, with the sale price the storefront would charge."""

from __future__ import annotations

from datetime import datetime

from webstore.catalog import Category, Package
from webstore.operator import schemas
from webstore.pricing import PricingContext, best_sale_discount
from webstore.repo.store import StoreRepository, StoreView
from webstore.services import Services


def for_sale(package: Package, now: datetime) -> bool:
    return not package.disabled and (package.expiration_date is None or now < package.expiration_date)


def listing(services: Services, account_id: int) -> schemas.Listing:
    """One Query (store, categories, packages); dynamic categories have no fixed packages and
    are left out, as the plugins cannot sell them."""
    view = StoreRepository(services.table).catalog(account_id, with_packages=True)
    return listing_view(view, services.now())


def listing_view(view: StoreView, now: datetime) -> schemas.Listing:
    """Pure: the menu of a catalog as of `now`."""
    context = PricingContext(view.store, view.sales, now)
    by_category: dict[int, list[schemas.ListingPackage]] = {}
    for package in sorted(view.packages, key=lambda p: (p.order, p.id)):
        if for_sale(package, now):
            discount = best_sale_discount(package.price, package.id, package.category_id, context)
            by_category.setdefault(package.category_id, []).append(
                schemas.ListingPackage(
                    id=package.id,
                    order=package.order,
                    name=package.name,
                    price=float(package.price),
                    image=package.image or False,
                    gui_item="",
                    sale=schemas.ListingSale(active=discount > 0, discount=float(round(discount, 2))),
                )
            )
    shown = sorted((c for c in view.categories if not c.dynamic), key=lambda c: (c.order, c.id))
    children: dict[int, list[Category]] = {}
    for category in shown:
        if category.parent_id is not None:
            children.setdefault(category.parent_id, []).append(category)

    def entry(category: Category, has_subcategories: bool) -> schemas.ListingSubcategory:
        packages = by_category.get(category.id, [])
        return schemas.ListingSubcategory(
            id=category.id,
            order=category.order,
            name=category.name,
            only_subcategories=not packages and has_subcategories,
            gui_item="",
            packages=packages,
        )

    categories = []
    for category in shown:
        if category.parent_id is None:
            subs = children.get(category.id, [])
            categories.append(
                schemas.ListingCategory(
                    **dict(entry(category, bool(subs))),
                    subcategories=[entry(s, False) for s in subs],
                )
            )
    return schemas.Listing(categories=categories)
