"""A shop page's one read: the whole store partition (pages, goals, stats, the store with its
sales and sidebar, categories, packages) by one Query, with the store's live theme (GetItem), the
visitor's basket (GetItem) and, when the visitor says who they are, their tiers (GSI1 Query),
issued together: one round trip (docs/data-model.md counts parallel calls once).

The tiers' key needs the player id, which only the basket knows; the shop's cookie carries it
beside the basket ident so the three reads can start together. It is believed only when the
basket read in the same round trip names the same player: a forged cookie shows nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from webstore import keys
from webstore.catalog import Store
from webstore.errors import NotFound
from webstore.players import Tier, ongoing_tiers_by_category
from webstore.repo import start_read
from webstore.repo.player_tiers import PlayerTierRepository
from webstore.repo.shop_theme import ShopTheme, ShopThemeRepository
from webstore.repo.store import StoreRepository, StoreView
from webstore.services import Services
from webstore.shop.i18n import choose

if TYPE_CHECKING:  # loaded for the visitors who have a basket (`read_shop`)
    from webstore.basket import Basket
    from webstore.repo.baskets import BasketRepository


@dataclass(frozen=True)
class Visitor:
    """What the request's cookies say: the basket it holds, the player it was for, its CSRF
    token (empty until the first page sets one)."""

    basket_ident: str | None = None
    player_id: int | None = None
    csrf: str = ""
    accept_language: str = ""  # the request's header, for the page's language
    ip: str = ""  # the address the request came from (maintenance mode's allow-list)
    language: str = ""  # the language picked in the switcher (the `shop_lang` cookie)
    path: str = ""  # the page's own address (path and query) for the switcher's way back


@dataclass
class ShopData:
    view: StoreView
    basket: Basket | None
    tiers: dict[int, Tier] = field(default_factory=dict)  # category id -> the player's tier
    now: datetime | None = None
    theme: ShopTheme = field(default_factory=ShopTheme)  # the owner's live templates
    language: str = "en"  # the page's (webstore.shop.i18n.choose)
    storefront_url: str = ""  # the hosted pages' origin (settings.storefront_url)

    @property
    def store(self) -> Store:
        return self.view.store


def shop_account(services: Services) -> int:
    """The store this deployment's shop sells for (settings.shop_store_id); NotFound if none."""
    account_id = services.settings.shop_store_id
    if not account_id:
        raise NotFound("This site has no shop")
    return account_id


def own_basket_ident(account_id: int, ident: str | None) -> str | None:
    """The cookie's basket ident if it is one of this store's (a stale or foreign one is ignored)."""
    if not ident:
        return None
    try:
        return ident if keys.account_of(ident, "Basket") == account_id else None
    except NotFound:
        return None


def _basket_or_none(repository: BasketRepository, account_id: int, ident: str) -> Basket | None:
    try:
        return repository.of_store(account_id, ident)
    except NotFound:
        return None


def read_shop(services: Services, visitor: Visitor, *, account_id: int | None = None) -> ShopData:
    """The store, its live theme, and the visitor's basket and tiers: one round trip. The shop
    reads its deployment's store; the panel's preview names the store (`account_id`)."""
    account_id = account_id or shop_account(services)
    theme_future = start_read(ShopThemeRepository(services.table).shown, account_id)
    ident = own_basket_ident(account_id, visitor.basket_ident)
    basket_future = None
    if ident:
        # Here, not at import: a page without a basket cookie loads no basket, pricing or tax code.
        from webstore.repo.baskets import BasketRepository

        basket_future = start_read(_basket_or_none, BasketRepository(services.table), account_id, ident)
    tiers_future = (
        start_read(PlayerTierRepository(services.table).of_player, account_id, visitor.player_id)
        if ident and visitor.player_id and 1 <= visitor.player_id <= keys.INT32_MAX
        else None
    )
    view = StoreRepository(services.table).whole(account_id)
    basket = basket_future.result() if basket_future else None
    tiers: dict[int, Tier] = {}
    if tiers_future is not None:
        found = tiers_future.result()
        if basket is not None and basket.username_id == visitor.player_id:
            tiers = ongoing_tiers_by_category(found)
    theme = theme_future.result()
    if view.store.disabled:
        raise NotFound("This store is closed")
    language = choose(visitor.accept_language, view.store.lang, visitor.language)
    return ShopData(
        view=view,
        basket=basket,
        tiers=tiers,
        now=services.now(),
        theme=theme,
        language=language,
        storefront_url=services.settings.storefront_url,
    )
