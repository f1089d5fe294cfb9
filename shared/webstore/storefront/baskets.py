"""Storefront baskets: create, read, and change (packages, coupons, gift cards, creator codes).

Every basket use case reads through `load`: one BatchGetItem for the basket, its store and
whatever the change names (a package, a code, a gift recipient; the account is in the ident).
A change is then one method of the `Basket` aggregate and one put of the whole basket
conditioned on its `version`. A concurrent writer makes the put fail; the change is then redone
from a fresh read, a few times, before answering 409. The only further round trips: a player's
history for a limit (`user_limit`, a coupon's per-player limit), whose key needs the player id
the basket read returns, registering a gift recipient seen for the first time, and finding
a gift recipient named by platform id (UUID, Steam64) among the store's players.
See docs/baskets.md.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from webstore import keys
from webstore.basket import CHECKOUT_CLAIM_TIMEOUT, Basket, BasketLine, PackageRef, expiry
from webstore.catalog import Package, Store
from webstore.errors import Conflict, Invalid, NotFound
from webstore.identity.identify import Identification, identify, identify_now, identities_for
from webstore.identity.steam import STEAM64, is_steam_store
from webstore.repo.baskets import BasketReads, BasketRepository
from webstore.repo.store import StoreRepository
from webstore.repo.users import AlreadyRegistered, User
from webstore.services import Services
from webstore.storefront import basket_read
from webstore.storefront.credentials import (
    Credentials,
    check_checkout_credentials,
    check_not_blocked,
    verified,
)
from webstore.storefront.inputs import (
    check_custom,
    check_email,
    check_ip,
    recipient_name,
    recipient_platform_id,
    recipient_player_id,
)
from webstore.storefront.requests import (
    AddPackage,
    CouponCode,
    CreatorCodeName,
    GiftCardNumber,
    NewBasket,
    PackageQuantity,
    RemovePackage,
)
from webstore.storefront.retrying import Contended
from webstore.storefront.return_urls import check_return_url, platform_hosts
from webstore.usernames import check_username

# Also imported from here: by the hosted checkout (the claim timeout, repricing) and,
# as `baskets.<Body>`, by the handlers of these use cases (the bodies live in `requests`).
__all__ = [
    "CHECKOUT_CLAIM_TIMEOUT",
    "AddPackage",
    "CouponCode",
    "CreatorCodeName",
    "GiftCardNumber",
    "NewBasket",
    "PackageQuantity",
    "RemovePackage",
    "reprice",
]

WRITE_ATTEMPTS = 3


def identify_player(services: Services, store: Store, username: str) -> User:
    """A gift recipient as the store's identity mode knows them, registered if first seen (the
    door unit tests give a fake)."""
    return identify_now(services, store, username, field="target_username_id")


Change = Callable[[basket_read.Loaded, datetime], None]


def change(
    services: Services, ident: str, token: str | None, apply: Change, reads: BasketReads | None = None
) -> Basket:
    """Read, apply `apply` (an aggregate change), reprice, and write under the version
    condition; redo from a fresh read on a race."""
    repository = basket_read.basket_repository(services)
    for attempt in range(1, WRITE_ATTEMPTS + 1):
        loaded = basket_read.load(services, ident, token, reads)
        basket, now = loaded.basket, services.now()
        basket.check_changeable(now)
        apply(loaded, now)
        basket.changed(loaded.store, now)
        try:
            repository.save(basket)
        except Conflict:
            if attempt == WRITE_ATTEMPTS:
                raise Contended() from None
            continue
        return basket
    raise AssertionError("unreachable")


def reprice(basket: Basket, store: Store, now: datetime) -> None:
    """The basket's prices as of `now` (the hosted checkout reprices before it charges)."""
    basket.reprice(store, now)


# --- create and get ----------------------------------------------------------------------------


def create_basket(
    services: Services, token: str, request: NewBasket, ip: str, credentials: Credentials | None = None
) -> Basket:
    """SPEC: an invalid store ID is 422 for this operation (elsewhere an unknown token is 404).
    With Basic auth (a store's backend; checked when sent), the return URLs may be any https URL."""
    try:
        account_id = keys.account_of(token)
    except NotFound:
        raise Invalid("The store ID is invalid", field="token") from None
    username = check_username(request.username) if request.username is not None else None
    email = check_email(request.email) if request.email is not None else None
    custom = check_custom(request.custom) if request.custom is not None else None
    ip = check_ip(ip)

    if credentials is not None:
        check_not_blocked(services, credentials)
    reads = BasketReads(username=username, failure_mark=credentials.failure_mark if credentials else None)
    try:
        read = basket_read.basket_repository(services).read(account_id, reads, consistent=False)
        store = verified(read.store, token)
    except NotFound:
        raise Invalid("The store ID is invalid", field="token") from None
    if store.disabled:
        raise Invalid("This store is disabled", field="token")
    if credentials is not None:
        check_checkout_credentials(services, store, credentials, read.failure_mark)
    trusted = credentials is not None
    own = platform_hosts(services.settings)
    # The hosted pages redirect to these: only to the store's own site (no open redirect),
    # unless the store's backend (Basic auth) chose them.
    complete_url = (
        check_return_url(store, request.complete_url, "complete_url", trusted=trusted, own_hosts=own)
        if request.complete_url
        else None
    )
    cancel_url = (
        check_return_url(store, request.cancel_url, "cancel_url", trusted=trusted, own_hosts=own)
        if request.cancel_url
        else ""
    )
    # Before anything is written: an unknown online name or the name service down refuses here.
    player = identify(services, store, username, read.registry) if username else None
    user = player.user if player else None

    now = services.now()
    basket = Basket(
        ident=keys.new_basket_ident(account_id),
        account_id=account_id,
        currency=store.currency,
        email=email,
        username=user.username if user else None,
        username_id=user.id if user else None,
        ip=ip,
        cancel_url=cancel_url,
        complete_url=complete_url,
        complete_auto_redirect=request.complete_auto_redirect,
        custom=custom,
        notify_abandoned=store.emit_basket_abandoned,
        created_at=now,
        updated_at=now,
        expires_at=expiry(store, now),
    )
    _create(services, store, basket, player)
    return basket


def _create(services: Services, store: Store, basket: Basket, player: Identification | None) -> None:
    """Write the new basket; a first-seen player is registered in the same transaction (one
    round trip). If someone registered that player meanwhile, theirs is used."""
    repository = basket_read.basket_repository(services)
    if player is None or not player.writes:
        repository.create(basket)
        return
    tx = services.transaction()
    player.add_writes(tx)
    repository.add_create(tx, basket)
    try:
        tx.commit()
    except AlreadyRegistered:
        user = identify_now(services, store, player.user.username)
        basket.username, basket.username_id = user.username, user.id
        repository.create(basket)


# --- packages ---------------------------------------------------------------------------------


def add_package(services: Services, token: str | None, ident: str, request: AddPackage) -> Basket:
    ref = PackageRef.parse(request.package_id)
    gift_to = recipient(services, ident, request.target_username_id)
    repository = basket_read.basket_repository(services)

    def apply(loaded: basket_read.Loaded, now: datetime) -> None:
        basket = loaded.basket
        new = basket.new_line(
            ref,
            loaded.packages,
            loaded.store,
            now,
            sold_as=request.type,
            variable_data=request.variable_data,
            gift_to=gift_to,
        )
        if new.gift_to:
            recipient = loaded.user or identify_player(services, loaded.store, new.gift_to)
            new.line.gift_username_id, new.line.gift_username = str(recipient.id), recipient.username
        basket.add_line(new, request.quantity, bought=_bought(repository, basket, new.line, new.package))

    return change(services, ident, token, apply, BasketReads(packages=ref.catalog_ids, username=gift_to))


def recipient(services: Services, ident: str, target: int | str | None) -> str | None:
    """The username a gift names: a username as given, a platform id (Minecraft UUID with or
    without dashes, Steam64), or the numeric player id the basket answers as
    `gift_username_id`, the last two resolved through the store's players (a GetItem or two,
    only then). Players the store has seen: buyers, gift recipients, names looked up through
    its username lookup (`storefront.ident_lookup`)."""
    platform_id = recipient_platform_id(target)
    player_number = recipient_player_id(target)
    if platform_id is None and player_number is None:
        return recipient_name(target)
    from webstore.repo.players import PlayerRepository  # only a gift named by id: not at import

    account_id = keys.account_of(ident, "Basket")
    players = PlayerRepository(services.table)
    username_id = players.id_by_uuid(account_id, platform_id) if platform_id else player_number
    player = players.get(account_id, username_id) if username_id is not None else None
    if player is None and platform_id is None and not isinstance(target, int):
        return recipient_name(target)  # digits that are no player's id: a name of digits
    if player is None and platform_id is not None and "-" in platform_id:
        named = account_name(services, account_id, platform_id)
        if named is not None:
            return named
    if player is None and platform_id is not None and steam_account(services, account_id, platform_id):
        return platform_id  # a Steam store's player by their Steam64 id (registered as they sign in)
    if player is None:
        raise Invalid(
            "target_username_id: no player with this id is known to the store; name them by username",
            field="target_username_id",
        )
    return player.username


def steam_account(services: Services, account_id: int, steam_id: str) -> bool:
    """Whether a gift may go to a Steam account the store has not seen: in a Steam store, yes
    (a Steam64 id names one Steam account, as a Steam sign-in or a basket created for those
    digits binds it; one GetItem for the store); never in another store."""
    if not STEAM64.match(steam_id):
        return False
    return is_steam_store(StoreRepository(services.table).store(account_id))


def account_name(services: Services, account_id: int, dashed_uuid: str) -> str | None:
    """The name of the Minecraft account a UUID names, for a gift to a player the store has not
    seen: in an online-mode store, through the name service (one GetItem for the store, one
    lookup); None in an offline-mode store (its UUIDs are hashes of names)."""
    store = StoreRepository(services.table).store(account_id)
    if not store.online_mode:
        return None
    account = identities_for(services, store).account(dashed_uuid.replace("-", ""))
    return account.username if account else None


def _bought(repository: BasketRepository, basket: Basket, line: BasketLine, package: Package | None) -> int:
    """What the line's recipient bought of a limited package before (one GetItem), else 0."""
    receiver = basket.receiver_id(line)
    if package is None or not package.user_limit or receiver is None:
        return 0
    return repository.purchased(basket.account_id, receiver, package.id)


def remove_package(services: Services, token: str | None, ident: str, request: RemovePackage) -> Basket:
    """Removes the package's lines (only the gift to `target_username_id` when given)."""
    ref = PackageRef.parse(request.package_id)
    gift_to = recipient(services, ident, request.target_username_id)
    return change(services, ident, token, lambda loaded, now: loaded.basket.remove_package(ref, gift_to))


def update_quantity(
    services: Services, token: str | None, ident: str, package_id: str, request: PackageQuantity
) -> Basket:
    """Sets one line's quantity (0 removes it), re-reading the package for its current rules."""
    ref = PackageRef.parse(package_id)
    gift_to = recipient(services, ident, request.target_username_id)
    repository = basket_read.basket_repository(services)

    def apply(loaded: basket_read.Loaded, now: datetime) -> None:
        basket = loaded.basket
        line = basket.line_to_change(ref, gift_to)
        package = None if line.dynamic else loaded.packages.get(line.package_id)
        bought = _bought(repository, basket, line, package) if request.quantity else 0
        basket.change_quantity(line, package, request.quantity, bought=bought)

    return change(services, ident, token, apply, BasketReads(packages=ref.catalog_ids))


# --- coupons, gift cards, creator codes --------------------------------------------------------


def apply_coupon(services: Services, token: str | None, ident: str, code: str) -> Basket:
    repository = basket_read.basket_repository(services)

    def apply(loaded: basket_read.Loaded, now: datetime) -> None:
        basket, coupon = loaded.basket, loaded.coupon
        player_uses = None
        if coupon is not None and coupon.user_limit and basket.username_id:
            player_uses = repository.coupon_uses(basket.account_id, coupon.id, basket.username_id)
        basket.apply_coupon(
            coupon, loaded.store, now, redemptions=loaded.coupon_redemptions, player_redemptions=player_uses
        )

    return change(services, ident, token, apply, BasketReads(coupon_code=code.strip()))


def remove_coupon(services: Services, token: str | None, ident: str, code: str) -> Basket:
    return change(services, ident, token, lambda loaded, now: loaded.basket.remove_coupon(code))


def apply_giftcard(services: Services, token: str | None, ident: str, number: str) -> Basket:
    return change(
        services,
        ident,
        token,
        lambda loaded, now: loaded.basket.apply_giftcard(loaded.giftcard, now),
        BasketReads(giftcard=number.strip()),
    )


def remove_giftcard(services: Services, token: str | None, ident: str, number: str) -> Basket:
    return change(services, ident, token, lambda loaded, now: loaded.basket.remove_giftcard(number))


def apply_creator_code(services: Services, token: str | None, ident: str, code: str) -> Basket:
    """A basket carries one creator code; applying another replaces it. No effect on prices."""
    return change(
        services,
        ident,
        token,
        lambda loaded, now: loaded.basket.apply_creator_code(loaded.creator_code),
        BasketReads(creator_code=code.strip()),
    )


def remove_creator_code(services: Services, token: str | None, ident: str, code: str | None) -> Basket:
    return change(services, ident, token, lambda loaded, now: loaded.basket.remove_creator_code(code))
