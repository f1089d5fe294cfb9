"""The player-identity port: what a username names on the platform, and how that can fail."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from webstore.errors import DomainError

ACCOUNT_UUID = re.compile(r"^[0-9a-f]{32}$")


@dataclass(frozen=True)
class Account:
    """A platform account: its UUID (32 lowercase hex digits, no dashes: the form every plugin
    parses) and its name as the platform spells it."""

    uuid: str
    username: str

    @property
    def dashed_uuid(self) -> str:
        """The registry's form (players, bans and pointers keep dashed UUIDs)."""
        u = self.uuid
        return f"{u[:8]}-{u[8:12]}-{u[12:16]}-{u[16:20]}-{u[20:]}"


class NameServiceUnavailable(DomainError):
    """The platform's name service did not answer usably (timeout, 429, 5xx, garbage): not the
    same as an unknown name. Nothing is decided or written; the player tries again shortly."""

    status = 503
    title = "Service unavailable"
    retry_after = 30

    def __init__(self, detail: str = "", *, field: str | None = "username") -> None:
        super().__init__(
            detail
            or "The Minecraft name service is not answering right now, so your username cannot be "
            "checked. Nothing was changed: please try again in a minute.",
            field=field,
        )


class SteamProfiles(Protocol):
    """A Steam account's public profile (Steam's Web API, with the store's key)."""

    def persona_name(self, steam_id: str) -> str | None:
        """The account's persona name, or None when Steam has no profile for it. Raises
        NameServiceUnavailable when Steam cannot be asked (or refuses the key)."""
        ...


class PlayerIdentities(Protocol):
    """Resolves a (syntactically valid) username to the account it names on the platform."""

    def resolve(self, username: str) -> Account | None:
        """The account, or None when the platform has no account of that name. Raises
        NameServiceUnavailable when it cannot tell."""
        ...

    def account(self, uuid: str) -> Account | None:
        """The account with this UUID (32 lowercase hex digits), or None when there is none or
        the mode cannot read one back (offline-mode UUIDs are derived from names). Raises
        NameServiceUnavailable when it cannot tell."""
        ...
