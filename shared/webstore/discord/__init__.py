"""Discord: roles that follow the purchase (docs/discord.md).

The port (`DiscordApi`) is the few calls of Discord's HTTP API the store makes: the OAuth2 code
exchange and `/users/@me` (linking a player's account), adding a member to a guild with roles,
adding and removing one role, reading a guild's roles and a member (the bot's own, for the role
hierarchy check), and the bot's guilds. `webstore.discord.http.HttpDiscord` is the adapter (httpx,
Discord's rate limits honoured); tests and `webstore serve` point it at a loopback stand-in
(tests/support/discord_standin.py) through its base URL.

Errors say what the caller should do: `DiscordRetryLater` (a 429 longer than the adapter waits,
a 5xx, a network failure: deliver again later), `DiscordRefused` (a 4xx that another attempt will
not change, e.g. the role hierarchy's 403: shown to the owner, not retried).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

API_BASE_URL = "https://discord.com/api/v10"

# Discord's JSON error codes the store acts on (https://discord.com/developers/docs/topics/opcodes-and-status-codes).
UNKNOWN_GUILD = 10004
UNKNOWN_MEMBER = 10007
UNKNOWN_ROLE = 10011
UNKNOWN_USER = 10013
MISSING_ACCESS = 50001
MISSING_PERMISSIONS = 50013  # the role hierarchy: the bot's highest role is not above the role


@dataclass(frozen=True)
class DiscordUser:
    id: str
    username: str
    global_name: str | None = None

    @property
    def display_name(self) -> str:
        return self.global_name or self.username


@dataclass(frozen=True)
class OAuthToken:
    access_token: str
    refresh_token: str | None
    expires_in: int
    scopes: frozenset[str]


@dataclass(frozen=True)
class Role:
    id: str
    name: str
    position: int
    managed: bool = False


@dataclass(frozen=True)
class Guild:
    id: str
    name: str


@dataclass(frozen=True)
class Member:
    user_id: str
    roles: frozenset[str] = field(default_factory=frozenset)


class DiscordError(Exception):
    """Discord answered something other than success (or did not answer)."""

    def __init__(
        self, message: str, *, status: int | None = None, code: int | None = None, body: str = ""
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.body = body  # Discord's answer as it came (capped), for the delivery log


class DiscordRetryLater(DiscordError):
    """Try again later: rate limited beyond what the adapter waits (`retry_after` seconds), a 5xx,
    or no answer."""

    def __init__(
        self, message: str, *, retry_after: float | None = None, status: int | None = None, body: str = ""
    ) -> None:
        super().__init__(message, status=status, body=body)
        self.retry_after = retry_after


class DiscordRefused(DiscordError):
    """A 4xx another attempt will not change (bad token, missing permission, unknown guild)."""

    @property
    def hierarchy(self) -> bool:
        """The bot may not manage this role: its highest role is not above it (or it lacks
        Manage Roles). The owner fixes it in Discord; retrying does not."""
        return self.status == 403 and self.code in (MISSING_PERMISSIONS, MISSING_ACCESS)


class DiscordApi(Protocol):
    """What the store asks of Discord. Snowflakes are strings, as on the wire."""

    # A player's side (OAuth2 with the store's application).
    def exchange_code(self, code: str, redirect_uri: str, code_verifier: str) -> OAuthToken: ...

    def current_user(self, access_token: str) -> DiscordUser: ...

    def check_client(self) -> None:
        """The client id and secret checked (OAuth2 client credentials); DiscordRefused if wrong."""
        ...

    # The bot's side (the store's bot token).
    def bot_user(self) -> DiscordUser: ...

    def bot_guilds(self) -> list[Guild]: ...

    def guild_roles(self, guild_id: str) -> list[Role]: ...

    def get_member(self, guild_id: str, user_id: str) -> Member | None: ...

    def add_member(self, guild_id: str, user_id: str, access_token: str, roles: list[str]) -> bool:
        """Adds the user with these roles (True); False when already a member: Discord then
        ignores `roles`, the caller adds them one by one."""
        ...

    def add_role(self, guild_id: str, user_id: str, role_id: str, reason: str) -> None: ...

    def remove_role(self, guild_id: str, user_id: str, role_id: str, reason: str) -> None:
        """Success when the member no longer holds the role, including when they never did or
        have left the guild."""
        ...
