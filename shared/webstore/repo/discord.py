"""Discord records in the one table, under the account partition (`ACCOUNT#<id>`).

| item                                   | SK                                         | TTL     |
|----------------------------------------|--------------------------------------------|---------|
| the store's application and bot        | `DISCORD#APP`                              | none    |
| one package's rule (guild, roles)      | `DISCORD#RULE#<package, 10 digits>`        | none    |
| a player's linked Discord account      | `DISCORD#LINK#<player, 10 digits>`         | none    |
| … found from the Discord user id       | `DISCORD#USER#<discord user id>`           | none    |
| the roles the store applied to a member| `DISCORD#HELD#<player, 10 digits>#<guild>` | none    |
| one role delivery (the panel's log)    | `DISCORD#LOG#<at>#<id>`                    | 90 days |
| a player's OAuth2 round trip (state)   | `DISCORD#STATE#<state>`                    | 10 min  |

Secrets (the application's client secret, the bot token, a player's access token) are stored
sealed (webstore.secret_box) by the use cases; this module never sees them in the clear.

Reads: the rules are one Query (`DISCORD#RULE#` prefix); a player's link and applied roles one
Query each (`DISCORD#LINK#<player>`, `DISCORD#HELD#<player>#` prefix); the log one Query, newest
first.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from pydantic import BaseModel, Field

from webstore.db import ConditionFailed, Item, Table, Transaction
from webstore.domain.discord import RoleRule
from webstore.keys import account_pk, key
from webstore.recurring import ScheduleItem, ScheduleKind
from webstore.repo.audit_log import Audit
from webstore.repo.schedule import ScheduleKey, ScheduleRepository, schedule_key

PREFIX = "DISCORD#"
APP_SK = "DISCORD#APP"
RULE_PREFIX = "DISCORD#RULE#"
LINK_PREFIX = "DISCORD#LINK#"
USER_PREFIX = "DISCORD#USER#"
HELD_PREFIX = "DISCORD#HELD#"
LOG_PREFIX = "DISCORD#LOG#"
STATE_PREFIX = "DISCORD#STATE#"
LOG_RETENTION = timedelta(days=90)
RECONCILE_EVERY = timedelta(days=1)
RECONCILE_REFERENCE = "discord"  # the daily reconciliation's schedule reference (one per store)
ANSWER_CHARS = 1000


def _n(number: int) -> str:
    return f"{number:010d}"


class GuildRoleView(BaseModel):
    id: str
    name: str
    position: int


class GuildView(BaseModel):
    """A guild the bot is in, as Discord described it when the owner saved: its roles and the
    position of the bot's highest role (a role below it is one the bot may grant)."""

    id: str
    name: str
    roles: list[GuildRoleView] = Field(default_factory=list)
    bot_top: int = 0

    def manageable(self, role_id: str) -> bool:
        return any(r.id == role_id and r.position < self.bot_top for r in self.roles)

    def role_name(self, role_id: str) -> str:
        return next((r.name for r in self.roles if r.id == role_id), role_id)


class DiscordApp(BaseModel):
    """What the owner connected in panel → Discord (the secrets sealed)."""

    client_id: str
    client_secret_sealed: str
    bot_token_sealed: str
    public_key: str = ""  # the application's Ed25519 key, for the interactions endpoint
    bot_user_id: str = ""
    guilds_join: bool = True  # players are asked for `guilds.join`: the store may add them
    bot_name: str = ""
    guilds: list[GuildView] = Field(default_factory=list)  # checked with Discord on save
    updated_at: datetime
    reconcile_sk: str = ""  # the SK of its daily reconciliation's schedule item (webstore.discord.daily)

    def guild(self, guild_id: str) -> GuildView | None:
        return next((g for g in self.guilds if g.id == guild_id), None)


class DiscordLink(BaseModel):
    """A player's linked Discord account."""

    username_id: int
    discord_user_id: str
    discord_username: str = ""
    access_token_sealed: str = ""  # for adding them to a guild (guilds.join); "" when not granted
    scopes: list[str] = Field(default_factory=list)
    linked_at: datetime


class LinkState(BaseModel):
    """A player's OAuth2 round trip under way: the state Discord hands back and the PKCE verifier."""

    state: str
    username_id: int
    verifier: str
    basket_ident: str
    until: datetime
    back: str = ""  # where the finished page's "Back" goes ("": the basket's receipt)


class DeliveryEntry(BaseModel):
    """One grant or revocation as the panel's delivery log shows it."""

    id: str
    at: datetime
    username_id: int
    discord_user_id: str
    guild_id: str
    role_id: str
    action: str  # grant | revoke | join
    status: str  # done | retry | refused | waiting
    answer: str = ""  # Discord's answer (capped), or why nothing was sent
    attempt: int = 1
    trigger: str = ""  # the event type, "reconcile", or "retry"


class DiscordRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    # --- the application ---

    def app(self, account_id: int) -> DiscordApp | None:
        item = self.table.get(key(account_pk(account_id), APP_SK))
        return DiscordApp.model_validate(item) if item else None

    def save_app(self, account_id: int, app: DiscordApp, audit: Audit) -> None:
        """The application, and (the first time, or when it has none) its daily reconciliation's
        schedule item, due a day after `updated_at`, in the same transaction. An `app` that names
        no item keeps the stored one's."""
        tx = Transaction(self.table)
        if not app.reconcile_sk:
            stored = self.app(account_id)
            app = app.model_copy(update={"reconcile_sk": stored.reconcile_sk if stored else ""})
        if not app.reconcile_sk:
            due = app.updated_at + RECONCILE_EVERY
            item_key = schedule_key(ScheduleKind.DISCORD, account_id, RECONCILE_REFERENCE, due)
            item = ScheduleItem(
                kind=ScheduleKind.DISCORD, account_id=account_id, reference=RECONCILE_REFERENCE, due_at=due
            )
            ScheduleRepository.add_item(tx, item_key, item)
            app = app.model_copy(update={"reconcile_sk": item_key.sk})
        tx.put(
            {**key(account_pk(account_id), APP_SK), "entity": "discord_app", **app.model_dump(mode="json")}
        )
        audit.add_to(tx, account_id)
        tx.commit()

    def reconciled(
        self, account_id: int, done: ScheduleKey, claim: str, previous_sk: str, due: datetime
    ) -> None:
        """The daily item done under `claim` and the next one put, due at `due`, the application
        pointing at it (on condition that it still points at the done one): one transaction."""
        next_key = schedule_key(ScheduleKind.DISCORD, account_id, RECONCILE_REFERENCE, due)
        tx = Transaction(self.table)
        ScheduleRepository.add_done(tx, done, claim)
        item = ScheduleItem(
            kind=ScheduleKind.DISCORD, account_id=account_id, reference=RECONCILE_REFERENCE, due_at=due
        )
        ScheduleRepository.add_item(tx, next_key, item)
        tx.update(
            key(account_pk(account_id), APP_SK),
            "SET reconcile_sk = :next",
            condition="reconcile_sk = :previous",
            values={":next": next_key.sk, ":previous": previous_sk},
        )
        tx.commit()

    # --- package rules ---

    def rules(self, account_id: int) -> list[RoleRule]:
        items, _ = self.table.query(account_pk(account_id), sk_prefix=RULE_PREFIX)
        return [
            RoleRule(
                package_id=int(i["package_id"]),
                guild_id=str(i["guild_id"]),
                role_ids=frozenset(str(r) for r in i.get("role_ids") or ()),
                remove_on_end=bool(i.get("remove_on_end", True)),
            )
            for i in items
        ]

    def save_rule(self, account_id: int, rule: RoleRule, audit: Audit) -> None:
        tx = Transaction(self.table)
        tx.put(
            {
                **key(account_pk(account_id), RULE_PREFIX + _n(rule.package_id)),
                "entity": "discord_rule",
                "package_id": rule.package_id,
                "guild_id": rule.guild_id,
                "role_ids": sorted(rule.role_ids),
                "remove_on_end": rule.remove_on_end,
            }
        )
        audit.add_to(tx, account_id)
        tx.commit()

    def linked_players(self, account_id: int) -> list[int]:
        """Every player with a linked account (the reconciliation's list): one Query per page."""
        found: list[int] = []
        start: Item | None = None
        while True:
            items, start = self.table.query(
                account_pk(account_id), sk_prefix=LINK_PREFIX, start_key=start, projection="username_id"
            )
            found += [int(i["username_id"]) for i in items]
            if start is None:
                return found

    # --- players' links ---

    def link(self, account_id: int, username_id: int) -> DiscordLink | None:
        item = self.table.get(key(account_pk(account_id), LINK_PREFIX + _n(username_id)))
        return DiscordLink.model_validate(item) if item else None

    def player_of(self, account_id: int, discord_user_id: str) -> int | None:
        item = self.table.get(key(account_pk(account_id), USER_PREFIX + discord_user_id))
        return int(item["username_id"]) if item else None

    def save_link(self, account_id: int, link: DiscordLink, previous: DiscordLink | None) -> None:
        """The link and its pointer from the Discord user id, in one transaction (a relink to
        another Discord account drops the old pointer)."""
        pk = account_pk(account_id)
        tx = Transaction(self.table)
        tx.put(
            {
                **key(pk, LINK_PREFIX + _n(link.username_id)),
                "entity": "discord_link",
                **link.model_dump(mode="json"),
            }
        )
        tx.put(
            {
                **key(pk, USER_PREFIX + link.discord_user_id),
                "entity": "discord_user",
                "username_id": link.username_id,
            }
        )
        if previous is not None and previous.discord_user_id != link.discord_user_id:
            tx.delete(key(pk, USER_PREFIX + previous.discord_user_id))
        tx.commit()

    # --- OAuth2 states ---

    def save_state(self, account_id: int, state: LinkState) -> None:
        self.table.put(
            {
                **key(account_pk(account_id), STATE_PREFIX + state.state),
                "entity": "discord_state",
                "expires_at": int(state.until.timestamp()),  # the table's TTL
                **state.model_dump(mode="json"),
            }
        )

    def take_state(self, account_id: int, state: str) -> LinkState | None:
        """The state, once: read, then deleted on condition that it is still there (a second
        callback with the same state finds nothing)."""
        item_key = key(account_pk(account_id), STATE_PREFIX + state)
        item = self.table.get(item_key, consistent=True)
        if item is None:
            return None
        try:
            self.table.delete(item_key, condition="attribute_exists(PK)")
        except ConditionFailed:
            return None
        return LinkState.model_validate({k: v for k, v in item.items() if k in LinkState.model_fields})

    # --- roles the store applied ---

    def applied(self, account_id: int, username_id: int) -> dict[str, frozenset[str]]:
        items, _ = self.table.query(account_pk(account_id), sk_prefix=f"{HELD_PREFIX}{_n(username_id)}#")
        return {str(i["guild_id"]): frozenset(str(r) for r in i.get("role_ids") or ()) for i in items}

    def set_applied(
        self, account_id: int, username_id: int, guild_id: str, roles: frozenset[str], now: datetime
    ) -> None:
        self.table.put(
            {
                **key(account_pk(account_id), f"{HELD_PREFIX}{_n(username_id)}#{guild_id}"),
                "entity": "discord_held",
                "guild_id": guild_id,
                "role_ids": sorted(roles),
                "updated_at": now.isoformat(),
            }
        )

    # --- the delivery log ---

    def log(self, account_id: int, entries: list[DeliveryEntry]) -> None:
        if not entries:
            return
        items: list[Item] = []
        for entry in entries:
            data = entry.model_dump(mode="json")
            data["answer"] = entry.answer[:ANSWER_CHARS]
            items.append(
                {
                    **key(account_pk(account_id), f"{LOG_PREFIX}{entry.at.isoformat()}#{entry.id}"),
                    "entity": "discord_delivery",
                    "expires_at": int((entry.at + LOG_RETENTION).timestamp()),
                    **data,
                }
            )
        self.table.batch_write(items)

    def recent(self, account_id: int, limit: int = 50) -> list[DeliveryEntry]:
        items, _ = self.table.query(account_pk(account_id), sk_prefix=LOG_PREFIX, forward=False, limit=limit)
        return [
            DeliveryEntry.model_validate({k: v for k, v in i.items() if k in DeliveryEntry.model_fields})
            for i in items
        ]


def new_delivery_id() -> str:
    return secrets.token_hex(6)
