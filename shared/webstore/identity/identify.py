"""Who a username is in a store: the identity of the store's mode, kept in the user registry.

- Offline-mode stores (`online_mode: false`, the default): the name is the player; the
  registry binds it to an id on first sight; its UUID is the offline-mode UUID of the name.
- Online-mode stores: the name is resolved to the Minecraft account it names (UUID and the
  name's real casing) through the name service (`webstore.identity.mojang`). The answer is
  cached in the registry for `RESOLUTION_FRESH_FOR` (30 days: shorter than the 37 days before
  a name given up can belong to someone else, so a cached answer never names the wrong
  player); the auth page, createBasket and checkout links re-resolve an older one.
  Fulfilment and gift recipients of a paid basket take any cached answer (the player was
  resolved when they logged in; a payment never waits for, or fails on, the name service).
  An unknown name → Invalid on the caller's field; the service down → NameServiceUnavailable
  (503), and nothing is written.

`identify` reads what the caller's first read did not and returns the registry writes still
to make; the caller commits them with its own (one transaction) or calls `registered`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from webstore import contention
from webstore.catalog import StoreProfile
from webstore.errors import Invalid, NotFound
from webstore.identity.mojang import mojang_profiles
from webstore.identity.offline import OfflineIdentities
from webstore.identity.port import Account, PlayerIdentities
from webstore.identity.steam import STEAM64, is_steam_store
from webstore.repo import Transaction
from webstore.repo.users import AlreadyRegistered, CachedResolution, RegistryRead, User, UserRepository
from webstore.services import Services
from webstore.usernames import Bedrock, bedrock_kind, check_username

RESOLUTION_FRESH_FOR = timedelta(days=30)
REGISTRATION_ATTEMPTS = 3


@dataclass(frozen=True)
class Identification:
    """The player a name is, and the registry writes that are still to be made for it."""

    user: User
    new_offline: bool = False  # bind this offline name (first sight)
    new_account: bool = False  # bind this Minecraft account to its new id (first sight)
    resolved_at: datetime | None = None  # cache this fresh resolution of the name
    # Forget the name's cached resolution of this time: the account gave the name up, and a
    # Bedrock player (Floodgate without a prefix) has it now.
    forget: CachedResolution | None = None

    @property
    def writes(self) -> bool:
        return self.new_offline or self.new_account or self.resolved_at is not None or self.forget is not None

    def add_writes(self, tx: Transaction) -> None:
        """The registry writes as labelled actions (AlreadyRegistered when another request
        registered or resolved first: identify again and use theirs)."""
        if self.new_offline:
            UserRepository.add_offline(tx, self.user)
        if self.new_account:
            UserRepository.add_online_account(tx, self.user)
        if self.resolved_at is not None:
            UserRepository.add_online_resolution(tx, self.user, self.resolved_at)
        if self.forget is not None:
            UserRepository.add_forget_resolution(tx, self.forget)


def identities_for(services: Services, store: StoreProfile) -> PlayerIdentities:
    """The port's adapter for the store's mode."""
    if store.online_mode:
        settings = services.settings
        return mojang_profiles(settings.identity_base_url, settings.identity_timeout_seconds)
    return OfflineIdentities()


def identify(
    services: Services,
    store: StoreProfile,
    username: str,
    known: RegistryRead | None = None,
    *,
    field: str = "username",
    refresh: bool = True,
) -> Identification:
    """The player `username` names in this store. `known`: what the caller's read found (None:
    read it here, one GetItem). `refresh=False` takes a cached online answer of any age. In a
    Steam store a Steam64 id (the name a Steam sign-in gives) is that Steam account's player."""
    if is_steam_store(store) and STEAM64.match((username or "").strip()):
        return identify_steam(services, username.strip())
    username = check_username(username, field, store)
    users = UserRepository(services.table)
    # A Bedrock player (Floodgate) has no Java account to resolve, even in an online-mode
    # store: their identity is the offline one of their name (docs/decisions.md, "Bedrock names").
    kind = bedrock_kind(username, store)
    if not store.online_mode or kind is Bedrock.YES:
        return _offline(users, username, known)

    cached = known.online if known is not None else users.find_online(username)
    now = services.now()
    if cached is not None and (not refresh or now - cached.resolved_at < RESOLUTION_FRESH_FOR):
        return Identification(cached.user)
    if kind is Bedrock.MAYBE and not refresh:
        # Taken for a Bedrock player when they logged in (no account had the name): a payment
        # does not ask the name service again.
        known_offline = known.offline if known is not None else users.find(username)
        if known_offline is not None:
            return Identification(known_offline)
    account = identities_for(services, store).resolve(username)
    if account is None and kind is Bedrock.MAYBE:
        # No prefix, or one with letters: a name no Java account has is a Bedrock player's (an
        # account it was cached for has given it up: the cache goes, so reads find the player).
        return replace(_offline(users, username, known), forget=cached)
    if account is None:
        raise Invalid(
            f"There is no Minecraft account named {username}: check the spelling of your in-game name",
            field=field,
        )
    return _resolved(users, account, cached, now)


def _offline(users: UserRepository, username: str, known: RegistryRead | None) -> Identification:
    """The offline identity of `username`: registered, or new (its UUID the name's offline one)."""
    user = known.offline if known is not None else users.find(username)
    if user is not None:
        return Identification(user)
    account = OfflineIdentities().resolve(username)
    return Identification(User(users.next_id(), username, account.dashed_uuid), new_offline=True)


def _resolved(
    users: UserRepository, account: Account, cached: CachedResolution | None, now: datetime
) -> Identification:
    user_id: int | None
    if cached is not None and cached.user.uuid == account.dashed_uuid:
        user_id = cached.user.id
    else:
        user_id = users.online_account_id(account.uuid)  # renamed, or a name it took over
    if user_id is not None:
        return Identification(User(user_id, account.username, account.dashed_uuid), resolved_at=now)
    user = User(users.next_id(), account.username, account.dashed_uuid)
    return Identification(user, new_account=True, resolved_at=now)


def registered(services: Services, identification: Identification) -> User:
    """Make the identification's registry writes now (one write call: a put, or a transaction
    when a first-seen account is bound too or a stale resolution forgotten); the user."""
    users, user = UserRepository(services.table), identification.user
    if identification.new_account or identification.forget is not None:
        tx = services.transaction()
        identification.add_writes(tx)
        tx.commit()
    elif identification.new_offline:
        users.save_offline(user)
    elif identification.resolved_at is not None:
        users.save_online_resolution(user, identification.resolved_at)
    return user


def identify_now(
    services: Services,
    store: StoreProfile,
    username: str,
    known: RegistryRead | None = None,
    *,
    field: str = "username",
    refresh: bool = True,
) -> User:
    """`identify`, then its writes; a concurrent registration of the same player wins and is
    read back (the registry holds one id per player whoever writes first)."""
    for _ in contention.attempts(REGISTRATION_ATTEMPTS):
        identification = identify(services, store, username, known, field=field, refresh=refresh)
        try:
            return registered(services, identification)
        except AlreadyRegistered:
            known = None  # read again: theirs is there now
    raise AlreadyRegistered()


def identify_in_store(
    services: Services, account_id: int, username: str, *, field: str = "username", refresh: bool = False
) -> User:
    """`identify_now` for a caller that has not read the store: the store and the registry's
    entries in one read first (operator calls naming a player: bans, payment reassignment)."""
    username = check_username(username, field)
    store, known = UserRepository(services.table).store_and_registry(account_id, username)
    if store is None:
        raise NotFound("Store not found")
    return identify_now(services, store, username, known, field=field, refresh=refresh)


def identify_steam(services: Services, steam_id: str, persona: str | None = None) -> Identification:
    """The player a (verified) Steam64 id is: the id bound to that Steam account, or a new one
    bound on first sight (`USERACCOUNT#{steam64}`: 17 digits never meet a Minecraft UUID). The
    UUID the plugins read is the Steam64 id; the name is the persona name Steam's Web API gave
    (`persona`: the store has a key), else the Steam64 id too."""
    users = UserRepository(services.table)
    user_id = users.online_account_id(steam_id)
    name = persona or steam_id
    if user_id is not None:
        return Identification(User(user_id, name, steam_id))
    return Identification(User(users.next_id(), name, steam_id), new_account=True)


def plugin_uuid(user: User) -> str:
    """The UUID as every plugin parses it: 32 lowercase hex digits, no dashes."""
    return user.uuid.replace("-", "").lower()
