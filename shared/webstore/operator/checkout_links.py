"""POST /checkout: a checkout link a plugin hands to a player in game.

For a package: a new basket, already authenticated for that player, with one of the package
in it; the link is the hosted checkout page of that basket and expires with the basket. For a
category (the legacy plugin's category links): the category's page on the store's site.
"""

from __future__ import annotations

from datetime import UTC, datetime

from webstore.basket import expiry
from webstore.checkout.links import checkout_page, player_checkout
from webstore.errors import Invalid, NotFound
from webstore.identity.identify import identify_now
from webstore.operator import schemas
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.usernames import check_username


def _expires(epoch: int) -> str:
    """ISO 8601 with `+00:00`: what all three plugin clients parse as a date."""
    return datetime.fromtimestamp(epoch, UTC).isoformat()


def checkout_link(
    services: Services, account_id: int, request: schemas.CheckoutLinkRequest
) -> schemas.CheckoutLink:
    username = check_username(request.username)
    if request.package_id is None and request.category_id is None:
        raise Invalid("package_id is required", field="package_id")
    view = StoreRepository(services.table).catalog(account_id, with_packages=request.package_id is not None)
    store, now = view.store, services.now()
    check_username(username, store=store)  # the store's own rule: Bedrock names are per store
    if store.disabled:
        raise Invalid("This store is disabled", field="package_id")
    if request.package_id is None:
        assert request.category_id is not None
        if view.category(request.category_id) is None:
            raise NotFound("Category not found")
        site = store.webstore_url.rstrip("/")
        return schemas.CheckoutLink(
            url=f"{site}/category/{request.category_id}", expires=_expires(expiry(store, now))
        )

    user = identify_now(services, store, username)
    catalog = {p.id: p for p in view.packages}
    basket = player_checkout(services, account_id, store, catalog, user, request.package_id, now)
    assert basket.expires_at is not None
    return schemas.CheckoutLink(url=checkout_page(services, basket), expires=_expires(basket.expires_at))
