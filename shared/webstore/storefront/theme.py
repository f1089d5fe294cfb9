"""A store's brand on its hosted pages: name, logo, favicon, colours (webstore.storefront.colours,
kept readable whatever the owner picked) and the way back to its site; the page's policy allows
the colours' stylesheet by its hash (`Brand.policy`, webstore.html.player).
"""

from __future__ import annotations

from webstore.catalog import Store, StoreProfile
from webstore.html.player import Brand, Words, page_language, use_brand, use_words
from webstore.storefront.colours import theme_style


def brand(store: StoreProfile) -> Brand:
    """How the store's player-facing pages show it: name, logo, colours, the way back to its
    site; the shop's look (panel → Shop → Look, `Store.shop_brand`) over the catalog's logo and
    colours, and its favicon."""
    look = store.shop_brand if isinstance(store, Store) else None
    favicon = ""
    if look is not None:
        update = {n: getattr(look, n) for n in ("logo", "primary_color", "accent_color") if getattr(look, n)}
        store = store.model_copy(update=update) if update else store
        favicon = look.favicon
    return Brand(
        name=store.name,
        logo=store.logo,
        url=store.webstore_url,
        theme=theme_style(store),
        lang=page_language(store.lang),
        favicon=favicon or None,
    )


def in_brand_of(store: StoreProfile, words: Words | None = None) -> Brand:
    """A page use case has read the store: this request's pages, its problem page included, are
    in the store's brand from here on (`webstore.html.player.use_brand`), and print the owner's
    `words` (their translation files, read with the store: `use_words`) when given."""
    if words is not None:
        use_words(words)
    return use_brand(brand(store))
