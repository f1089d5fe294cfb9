"""The username lookup shops built on the platform's headless starter call before a gift
(`GET {headless_url}/ident/gametypes/{type}/username/{name}?type=username`): who a name is in
the store, in the store's identity mode, answered in the platform's lookup shape.

The platform runs this lookup as a service of its own at a fixed address; ours is per store,
under the storefront's base, so the starter works with its lookup base changed to
`{headless_url}/ident` (docs/compatibility.md). The player looked up becomes one the store has
seen (its player record and platform-id pointer), so the id answered is accepted at once as a
gift's `target_username_id`.
"""

from __future__ import annotations

from webstore import keys
from webstore.errors import Invalid, NotFound
from webstore.identity.identify import identify_now, plugin_uuid
from webstore.repo.players import PlayerRepository
from webstore.repo.users import UserRepository
from webstore.services import Services
from webstore.storefront import schemas
from webstore.storefront.credentials import verified
from webstore.usernames import check_username

MAX_GAME_TYPE = 32


def lookup_username(
    services: Services, public_token: str, game_type: str, username: str
) -> schemas.IdentUser:
    """The store and the registry's entries for the name (one read), the identification in the
    store's mode (the name service for an online-mode store: an unknown name is 422), and the
    store's player record written (one transaction). `game_type` is the caller's (the starter
    sends the platform's numeric id); the store's own platform decides how a name is read."""
    if not game_type or len(game_type) > MAX_GAME_TYPE:
        raise Invalid("the game type is required", field="gametype")
    username = check_username(username)
    account_id = keys.account_of(public_token)
    store, known = UserRepository(services.table).store_and_registry(account_id, username)
    if store is None:
        raise NotFound("Store not found")
    verified(store, public_token)
    user = identify_now(services, store, username, known)
    now = services.now()
    tx = services.transaction()
    PlayerRepository.add_player(tx, account_id, user, email="", now=now)
    tx.commit()
    stamp = now.isoformat()
    return schemas.IdentUser(
        id=plugin_uuid(user),
        username=user.username,
        created_at=stamp,
        updated_at=stamp,
        cache_expire=stamp,
        meta={},
    )
