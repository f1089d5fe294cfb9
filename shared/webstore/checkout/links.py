"""A checkout for one player: a new basket, already authenticated for them, holding one of a
package, and the hosted checkout page that pays it. Made by the plugins' checkout links
(`POST /checkout`) and by a tier upgrade that cannot be charged off-session (no saved payment
method): paying it charges what the basket shows (for a tier upgrade, the prorated difference,
`Basket.reprice`) and the payment sets the tier."""

from __future__ import annotations

from datetime import datetime

from webstore import keys
from webstore.basket import Basket, PackageRef
from webstore.catalog import Package, Store
from webstore.repo.baskets import BasketRepository
from webstore.repo.users import User
from webstore.services import Services


def player_checkout(
    services: Services,
    account_id: int,
    store: Store,
    packages: dict[int, Package],
    user: User,
    package_id: int,
    now: datetime,
) -> Basket:
    """The new basket (one PutItem; a GetItem first for a package with a user limit)."""
    basket = Basket(
        ident=keys.new_basket_ident(account_id),
        account_id=account_id,
        currency=store.currency,
        notify_abandoned=store.emit_basket_abandoned,
        created_at=now,
        updated_at=now,
    )
    basket.authenticate(user.id, user.username, now)
    new = basket.new_line(PackageRef(False, package_id), packages, store, now)
    baskets = BasketRepository(services.table)
    package = new.package
    bought = baskets.purchased(account_id, user.id, package.id) if package and package.user_limit else 0
    basket.add_line(new, 1, bought=bought)
    basket.changed(store, now)
    baskets.create(basket)
    return basket


def checkout_page(services: Services, basket: Basket) -> str:
    """The hosted checkout page of a basket."""
    return f"{services.settings.storefront_url}/checkout/{basket.ident}"
