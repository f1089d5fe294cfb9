"""createDynamicPackage: the shop's server fills a dynamic category for one basket.

Rules (docs/players.md): Basic auth (422 when absent, SPEC; 401 when wrong); the basket must be
authenticated and `username` must be its player; the call REPLACES the basket's packages of that
category (idempotent: the server can re-send its offer after every `basket.authenticated`).
Lines already in the basket keep the name and price they were added with. The rules and the
ids (unique within the basket for its whole life) are `Basket.replace_dynamic_packages`.

Round trips: one BatchGetItem (store, category, basket) + one conditional PutItem (basket version).
"""

from __future__ import annotations

from webstore import keys
from webstore.basket import DynamicPackage
from webstore.errors import Invalid
from webstore.repo.baskets import BasketReads, BasketRepository
from webstore.services import Services
from webstore.storefront.basket_read import load
from webstore.storefront.credentials import Credentials, require_present
from webstore.storefront.requests import DynamicPackageInput, DynamicPackagesRequest


def put_dynamic_packages(
    services: Services,
    public_token: str,
    basket_ident: str,
    request: DynamicPackagesRequest,
    credentials: Credentials | None,
) -> str:
    credentials = require_present(credentials, missing_is_invalid=True)
    keys.account_of(public_token)  # a malformed token is "Store not found", before the basket
    loaded = load(
        services,
        basket_ident,
        public_token,
        BasketReads(category=request.category_id),
        credentials=credentials,
    )
    basket, category = loaded.basket, loaded.category
    if request.basket_id is not None and request.basket_id != basket_ident:
        raise Invalid("basket_id must be the basket identifier of the path", field="basket_id")
    if category is None:
        raise Invalid(f"Category {request.category_id} not found", field="category_id")
    if not category.dynamic:
        raise Invalid(f"The category {category.id} is not dynamic", field="category_id")
    offers = [_offer(p, category.id) for p in request.packages]
    basket.replace_dynamic_packages(category.id, request.username, offers, services.now())
    BasketRepository(services.table).save(basket)
    count = len(request.packages)
    return f"{count} dynamic package{'' if count == 1 else 's'} set for category {category.id}"


def _offer(package: DynamicPackageInput, category_id: int) -> DynamicPackage:
    """A package as offered; the basket gives it its id."""
    return DynamicPackage(
        id=0,
        category_id=category_id,
        name=package.name,
        price=package.price,
        slug=package.slug,
        description=package.description,
        image_url=package.image_url,
        custom=dict(package.custom),
    )
