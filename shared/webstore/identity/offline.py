"""Offline-mode identities: every name is a player, its UUID the offline-mode UUID of the name
(what an offline-mode Minecraft server computes for a player who joins with it)."""

from __future__ import annotations

from webstore import keys
from webstore.identity.port import Account


class OfflineIdentities:
    """The adapter for offline-mode stores: no service to ask, the name is spelled as typed."""

    def resolve(self, username: str) -> Account:
        return Account(uuid=keys.player_uuid(username).replace("-", ""), username=username)

    def account(self, uuid: str) -> None:
        """An offline-mode UUID is a hash of the name: it cannot be read back."""
        return None
