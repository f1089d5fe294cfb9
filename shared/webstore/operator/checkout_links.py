"""POST /checkout: a checkout link a plugin hands to a player in game.

For a package: a new basket, already authenticated for that player, with one of the package
in it; the link is the hosted checkout page of that basket and expires with the basket. For a
category (the legacy plugin's category links): the category's page on the store's site.
"""

from __future__ import annotations

from datetime import UTC, datetime

from webstore import keys
from webstore.basket import Basket, PackageRef, expiry
from webstore.errors import Invalid, NotFound
from webstore.identity.identify import identify_now
from webstore.operator import schemas
from webstore.repo.baskets import BasketRepository
from webstore.repo.store import StoreRepository
from webstore.repo.users import check_username
from webstore.services import Services


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
    basket = Basket(
        ident=keys.new_basket_ident(account_id),
        account_id=account_id,
        currency=store.currency,
        notify_abandoned=store.emit_basket_abandoned,
        created_at=now,
        updated_at=now,
    )
    basket.authenticate(user.id, user.username, now)
    catalog = {p.id: p for p in view.packages}
    new = basket.new_line(PackageRef(False, request.package_id), catalog, store, now)
    baskets = BasketRepository(services.table)
    package = new.package
    bought = baskets.purchased(account_id, user.id, package.id) if package and package.user_limit else 0
    basket.add_line(new, 1, bought=bought)
    basket.changed(store, now)
    baskets.create(basket)
    assert basket.expires_at is not None
    url = f"{services.settings.storefront_url}/checkout/{basket.ident}"
    return schemas.CheckoutLink(url=url, expires=_expires(basket.expires_at))
