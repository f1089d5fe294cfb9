"""The one store-plus-basket read every basket use case starts from, and reading a basket.

One BatchGetItem: the basket, its store (which proves the caller's token or checkout
credentials) and whatever a change names (`BasketReads`). Apart from `webstore.storefront.baskets`
(the changes) so that the read's function loads only what a read needs. See docs/baskets.md."""

from __future__ import annotations

from dataclasses import dataclass, replace

from webstore import keys
from webstore.basket import Basket
from webstore.errors import NotFound
from webstore.repo.baskets import BasketReads, BasketRepository, StoreAndBasket
from webstore.services import Services
from webstore.storefront.credentials import (
    Credentials,
    check_checkout_credentials,
    check_not_blocked,
    verified,
)


@dataclass
class Loaded(StoreAndBasket):
    """A basket read with its store: the basket is there and belongs to the store."""

    basket: Basket


def basket_repository(services: Services) -> BasketRepository:
    """The door every basket use case reads and saves through (unit tests give it a fake)."""
    return BasketRepository(services.table)


def load(
    services: Services,
    ident: str,
    token: str | None,
    reads: BasketReads | None = None,
    *,
    credentials: Credentials | None = None,
) -> Loaded:
    """The basket, its store and what `reads` names, in one round trip (strongly consistent).

    With a token (the routes under `{headless_url}`), the basket must belong to that token's
    store; with `credentials` (Basic auth), they must be that store's (the caller's failure
    mark is read in the same round trip: the guard against guessed checkout keys)."""
    account_id = keys.account_of(ident, "Basket")
    if token is not None and keys.account_of(token) != account_id:
        raise NotFound("Basket not found")
    reads = replace(reads, basket=ident) if reads else BasketReads(basket=ident)
    if credentials is not None:
        check_not_blocked(services, credentials)
        reads = replace(reads, failure_mark=credentials.failure_mark)
    read = basket_repository(services).read(account_id, reads)
    if token is not None:
        verified(read.store, token)
    if credentials is not None:
        check_checkout_credentials(services, read.store, credentials, read.failure_mark)
    if read.basket is None:
        raise NotFound("Basket not found")
    return Loaded(**vars(read))


def get_basket(services: Services, token: str | None, ident: str) -> Basket:
    """One BatchGetItem: the basket and the store item that proves the token."""
    return load(services, ident, token).basket
