"""Storefront reads of the catalog: store, pages, categories, packages.

Each use case is one repository read (one round trip); a `basketIdent` or `usernameId`
adds the basket or the player's tiers, fetched in parallel with the catalog. The wire shapes
come from `storefront.views`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from webstore import keys
from webstore.catalog import Category
from webstore.errors import NotFound
from webstore.players import Tier, ongoing_tiers_by_category
from webstore.pricing import PricingContext
from webstore.repo import start_read
from webstore.repo.player_tiers import PlayerTierRepository
from webstore.repo.store import StoreRepository, StoreView
from webstore.services import Services
from webstore.storefront import schemas
from webstore.storefront.credentials import (
    Credentials,
    check_checkout_credentials,
    require_present,
    start_mark_read,
    verified,
)
from webstore.storefront.views import (
    category_view,
    dynamic_package_views,
    package_view,
    page_views,
    visible_packages,
    webstore_view,
)

if TYPE_CHECKING:  # a basket is read (and its modules loaded) only where a request names one
    from webstore.basket import Basket

T = TypeVar("T")


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
    from webstore.repo.baskets import BasketRepository

    repository = BasketRepository(services.table)
    basket_future = start_read(repository.of_store, keys.account_of(public_token), basket_ident)
    view = load_catalog(services, public_token, with_packages=with_packages)
    return view, basket_future.result()


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
    return page_views(view.store, view.pages)


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
    With `include_packages`, only the categories that have packages to show.

    The catalog Query, the basket GetItem and the tiers' GSI1 Query are issued together (with
    `username_id`, also the caller's failure mark: the guard against guessed checkout keys).
    """
    if username_id is None:
        view, basket = load_catalog_and_basket(
            services, public_token, basket_ident if include_packages else None, with_packages=include_packages
        )
        tiers: dict[int, Tier] = {}
    else:
        present = require_present(credentials)
        account_id = keys.account_of(public_token)
        mark_future = start_mark_read(services, present)
        tiers_future = start_read(PlayerTierRepository(services.table).of_player, account_id, username_id)
        # Tiers carry their full Package, so the packages are read even without includePackages.
        view, basket = load_catalog_and_basket(
            services, public_token, basket_ident if include_packages else None, with_packages=True
        )
        check_checkout_credentials(services, view.store, present, mark_future.result())
        tiers = ongoing_tiers_by_category(tiers_future.result())
    ctx = pricing_context(services, view)
    shown = [
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
    # A listing with packages leaves out the categories that have none to show (a dynamic one
    # without this basket's packages, an empty one): shops built on the platform's starter
    # read `category.packages[0]` of every category they are given (docs/compatibility.md).
    return [c for c in shown if c.packages] if include_packages else shown


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
