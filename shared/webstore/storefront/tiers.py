"""Tier change (PATCH /tiers/{id}): a player's move to another package of a tiered category.

Rules (docs/players.md):
- the new package must be an enabled subscription package of the tier's (tiered) category;
- a downgrade (a package that costs the same or less) is recorded as the tier's pending
  downgrade: status 2 "pending downgrade", effective at the next renewal, no money moves now;
- an upgrade (a dearer package) is charged now: the prorated difference (the package's
  `prorate_price`) off-session to the method the subscription saved, then the tier moves
  (`subscriptions.upgrades`; a declined charge is 402 and changes nothing); with no saved
  method to charge, the answer carries a checkout of the new package for the tier's player
  (`upgrade_checkout`), whose payment charges the prorated difference and moves the tier;
- choosing the current package cancels a pending downgrade (status back to 1 "active").
The write is conditional on the tier still being on the package it was read with.

Round trips: the catalog Query, the tier GetItem and the caller's failure mark (GetItem: the
guard against guessed checkout keys), issued together; then one UpdateItem (a downgrade). An
upgrade moves money and takes more (docs/subscriptions.md, "Upgrade").
"""

from __future__ import annotations

from webstore import keys
from webstore.basket import upgrade_price
from webstore.catalog import Package, PackageType
from webstore.checkout.checkout import gateway_for
from webstore.checkout.links import checkout_page, player_checkout
from webstore.errors import Invalid, NotFound
from webstore.players import Tier
from webstore.repo import start_read
from webstore.repo.player_tiers import PlayerTierRepository
from webstore.repo.players import PlayerRepository
from webstore.repo.store import StoreView
from webstore.repo.users import User
from webstore.services import Services
from webstore.storefront.catalog import load_catalog
from webstore.storefront.credentials import (
    Credentials,
    check_checkout_credentials,
    require_present,
    start_mark_read,
)
from webstore.storefront.schemas import TierChange
from webstore.subscriptions import upgrades


def _tier_id(value: str) -> int:
    if not (value.isascii() and value.isdigit()) or not 1 <= int(value) <= keys.INT32_MAX:
        raise NotFound("Tier not found")
    return int(value)


def change_tier(
    services: Services, public_token: str, tier_id: str, package_id: int, credentials: Credentials | None
) -> TierChange:
    present = require_present(credentials)
    account_id = keys.account_of(public_token)
    tiers = PlayerTierRepository(services.table)
    mark_future = start_mark_read(services, present)
    tier_future = start_read(tiers.get, account_id, _tier_id(tier_id))
    view = load_catalog(services, public_token, with_packages=True)
    check_checkout_credentials(services, view.store, present, mark_future.result())
    tier = tier_future.result()
    if tier is None:
        raise NotFound("Tier not found")
    if not tier.ongoing:
        raise Invalid("The tier is no longer active; buy the package instead", field="tierId")

    new = view.package(package_id)
    category = view.category(tier.category_id)
    if new is None or new.disabled:
        raise Invalid(f"Package {package_id} not found", field="package_id")
    if category is None or not category.tiered or new.category_id != category.id:
        raise Invalid(
            f"package_id must be a package of the tier's category {tier.category_id}", field="package_id"
        )
    if new.type is not PackageType.SUBSCRIPTION:
        raise Invalid("package_id must be a subscription package", field="package_id")

    if new.id == tier.package_id:
        if tier.pending_downgrade_package_id is None:
            return TierChange(success=True, message=f"The tier is already on {new.name}")
        tiers.schedule_change(account_id, tier, None)
        return TierChange(success=True, message=f"Pending downgrade cancelled; the tier stays on {new.name}")
    current = view.package(tier.package_id)
    if current is None:
        raise Invalid(
            f"The tier's package is no longer sold: add package {new.id} to a basket instead",
            field="package_id",
        )
    if new.price > current.price:
        try:
            upgraded = upgrades.upgrade(
                services, account_id, tier, current, new, gateway_for(services, view.store)
            )
        except upgrades.NoSavedMethod as refused:
            return upgrade_checkout(services, account_id, view, tier, new, refused)
        return TierChange(success=True, message=upgraded)
    tiers.schedule_change(account_id, tier, new.id)
    return TierChange(success=True, message=f"The tier changes to {new.name} at the next renewal")


def upgrade_checkout(
    services: Services, account_id: int, view: StoreView, tier: Tier, new: Package, refused: Invalid
) -> TierChange:
    """An upgrade with nothing to charge off-session: a checkout of the new package for the
    tier's player, which charges the prorated difference (what `prorate_price` shows) and, paid,
    moves the tier. The answer is not a success yet; its message and `links.checkout` carry the
    page to pay on (docs/compatibility.md)."""
    player = PlayerRepository(services.table).get(account_id, tier.username_id)
    if player is None:
        raise refused
    user = User(player.username_id, player.username, player.uuid or keys.player_uuid(player.username))
    catalog = {p.id: p for p in view.packages}
    basket = player_checkout(services, account_id, view.store, catalog, user, new.id, services.now())
    url = checkout_page(services, basket)
    amount = upgrade_price(tier, new, catalog, basket.currency, services.now())  # what checkout charges
    due = f"{amount:.2f} {basket.currency}"
    return TierChange(
        success=False,
        message=f"No saved payment method to charge: pay the prorated difference ({due}) at {url} "
        f"to upgrade to {new.name}",
        checkout=url,
    )
