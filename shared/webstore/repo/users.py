"""The platform's player registry: one stable `username_id` and UUID per player, per identity mode.

Two namespaces, never mixed (an online account and an offline name spelled alike are
different players):

- offline identities (`USER#{name lower}`): the name is the player; its UUID is the
  offline-mode UUID of the name. Bound on first sight by a conditional put.
- online identities (Minecraft accounts): `USERACCOUNT#{uuid}` binds the account to its id
  (conditional put, so an account has one id whatever names it goes by), and
  `USER#online:{name lower}` caches what the name resolved to and when (`resolved_at`), written
  with one conditional put that never lets an older resolution replace a newer one.

Ids come from one platform-wide sequence (`SEQ#USERS`, an ADD: no contention).
`webstore.identity.identify` decides what to read and write; writes are labelled actions the
caller may commit together with its own (the basket), so a first login is one transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from webstore import keys
from webstore.catalog import Store, StoreProfile
from webstore.db import TTL_ATTRIBUTE, Item, Table, Transaction, from_item
from webstore.errors import Conflict, Invalid
from webstore.usernames import Bedrock, bedrock_kind, check_username


@dataclass(frozen=True)
class User:
    id: int
    username: str
    uuid: str  # dashed, lowercase


@dataclass(frozen=True)
class CachedResolution:
    """An online name as last resolved: the account's user, and when the name service said so."""

    user: User
    resolved_at: datetime


@dataclass(frozen=True)
class RegistryRead:
    """What a caller's first read found for one name, in both namespaces (it reads both: the
    store's mode is only known once that same read returns)."""

    offline: User | None = None
    online: CachedResolution | None = None

    def user_for(self, store: StoreProfile, username: str) -> User | None:
        """The registered user of the store's mode, however old (what fulfilment uses); a
        Bedrock player's is the offline one in either mode."""
        try:
            check_username(username, store=store)
        except Invalid:
            return None  # no name in this store (a check before the read let it by): identify refuses it
        # A name either player may have (unprefixed Bedrock names) is the Java account it was
        # resolved to, if any; else unknown here (`identify` asks the name service first).
        if store.online_mode and bedrock_kind(username, store) is not Bedrock.YES:
            return self.online.user if self.online else None
        return self.offline


class AlreadyRegistered(Conflict):
    """Someone registered the same player (or resolved the same name more recently) first: read
    the registry again and use theirs."""

    def __init__(self) -> None:
        super().__init__("The player was registered meanwhile; read it again")


class ReplayedSignIn(Conflict):
    """A Steam assertion already used to sign in: a replay (or the same return page reloaded)."""

    def __init__(self) -> None:
        super().__init__("This Steam sign-in was already used; sign in again", field="openid.response_nonce")


def user_of_item(item: Item) -> User:
    return User(int(item["username_id"]), item["username"], item["uuid"])


def resolution_of_item(item: Item) -> CachedResolution:
    return CachedResolution(user_of_item(item), datetime.fromtimestamp(int(item["resolved_at"]), UTC))


def _user_attributes(user: User) -> Item:
    return {"entity": "user", "username_id": user.id, "username": user.username, "uuid": user.uuid}


def _offline_binding(user: User) -> tuple[Item, str]:
    return {**keys.user_key(user.username), **_user_attributes(user)}, "attribute_not_exists(PK)"


def _resolution(user: User, resolved_at: datetime) -> tuple[Item, str, dict[str, int]]:
    at = int(resolved_at.timestamp())
    item = {**keys.online_name_key(user.username), **_user_attributes(user), "resolved_at": at}
    return item, "attribute_not_exists(PK) OR resolved_at < :at", {":at": at}


class UserRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    # --- offline identities ---

    def find(self, username: str) -> User | None:
        item = self.table.get(keys.user_key(username))
        return user_of_item(item) if item else None

    def ensure(self, username: str) -> User:
        """The offline user of this name, registering it on first sight (at most 1 read + 2 writes)."""
        username = check_username(username)
        return self.find(username) or self.register_offline(username)

    def register_offline(self, username: str) -> User:
        """Register a name the caller found absent (1 id + 1 conditional put); a racing
        registration of the same name wins and is returned."""
        user = User(self.next_id(), username, keys.player_uuid(username))
        try:
            self.save_offline(user)
        except AlreadyRegistered:
            raced = self.find(username)  # someone registered it first: theirs stands
            if raced is None:
                raise
            return raced
        return user

    @staticmethod
    def add_offline(tx: Transaction, user: User) -> None:
        """Bind a new offline name to `user` (fails with AlreadyRegistered if bound meanwhile)."""
        item, condition = _offline_binding(user)
        tx.put(item, condition=condition, fails=AlreadyRegistered())

    def save_offline(self, user: User) -> None:
        """`add_offline` as a write of its own (one PutItem)."""
        item, condition = _offline_binding(user)
        self.table.put(item, condition=condition, fails=AlreadyRegistered())

    def store_and_registry(self, account_id: int, username: str) -> tuple[Store | None, RegistryRead]:
        """A store (for its identity mode) and what the registry holds for `username` in both
        namespaces: one BatchGetItem (for callers that have not read the store)."""
        store_key = keys.key(keys.store_pk(account_id), keys.STORE_ITEM)
        wanted = [store_key, keys.user_key(username), keys.online_name_key(username)]
        found = {(i["PK"], i["SK"]): i for i in self.table.batch_get(wanted)}
        store, offline, online = (found.get((k["PK"], k["SK"])) for k in wanted)
        registry = RegistryRead(
            offline=user_of_item(offline) if offline else None,
            online=resolution_of_item(online) if online else None,
        )
        return (from_item(Store, store) if store else None), registry

    # --- online identities ---

    def find_online(self, username: str) -> CachedResolution | None:
        item = self.table.get(keys.online_name_key(username))
        return resolution_of_item(item) if item else None

    def online_account_id(self, account_uuid: str) -> int | None:
        """The id bound to a Minecraft account, if any (one GetItem)."""
        item = self.table.get(keys.online_account_key(account_uuid))
        return int(item["username_id"]) if item else None

    @staticmethod
    def add_online_account(tx: Transaction, user: User) -> None:
        """Bind a Minecraft account (first seen) to its new id."""
        tx.put(
            {**keys.online_account_key(user.uuid), "entity": "user_account", "username_id": user.id},
            condition="attribute_not_exists(PK)",
            fails=AlreadyRegistered(),
        )

    @staticmethod
    def add_online_resolution(tx: Transaction, user: User, resolved_at: datetime) -> None:
        """Cache what a name resolved to; an older resolution never replaces a newer one."""
        item, condition, values = _resolution(user, resolved_at)
        tx.put(item, condition=condition, values=values, fails=AlreadyRegistered())

    @staticmethod
    def add_forget_resolution(tx: Transaction, cached: CachedResolution) -> None:
        """Delete a name's cached resolution, if it is still the one read (else AlreadyRegistered:
        someone resolved the name meanwhile)."""
        tx.delete(
            keys.online_name_key(cached.user.username),
            condition="resolved_at = :at",
            values={":at": int(cached.resolved_at.timestamp())},
            fails=AlreadyRegistered(),
        )

    def save_online_resolution(self, user: User, resolved_at: datetime) -> None:
        """`add_online_resolution` as a write of its own (one PutItem)."""
        item, condition, values = _resolution(user, resolved_at)
        self.table.put(item, condition=condition, values=values, fails=AlreadyRegistered())

    # --- Steam sign-in ---

    @staticmethod
    def add_steam_nonce(tx: Transaction, nonce: str, expires: datetime) -> None:
        """Claim a Steam assertion's nonce (fails with ReplayedSignIn when it was used before);
        the claim expires (TTL) once the assertion is too old to be accepted anyway."""
        item = {
            **keys.steam_nonce_key(nonce),
            "entity": "steam_nonce",
            TTL_ATTRIBUTE: int(expires.timestamp()),
        }
        tx.put(item, condition="attribute_not_exists(PK)", fails=ReplayedSignIn())

    # --- ids ---

    def next_id(self) -> int:
        """A new player id from the platform-wide sequence (one UpdateItem)."""
        result = self.table.update(
            keys.USERS_SEQUENCE_KEY,
            "ADD #n :one",
            names={"#n": "next"},
            values={":one": 1},
            return_values="UPDATED_NEW",
        )
        user_id = int(result["next"])
        if user_id > keys.INT32_MAX:
            raise Conflict("The player id space is exhausted")
        return user_id
