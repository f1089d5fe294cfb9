"""Bringing one player's Discord roles to what they hold now: the use case behind the Discord
consumer (an event that changes a purchase or subscription), the reconciliation (the daily clock
item and the panel's "Reconcile now") and the delivery log's "Retry now".

Every run recomputes from committed state (webstore.discord.entitlements), so a retry or a late
event never applies a stale change: a grant retried after the subscription ended sends nothing.
The event path compares with the roles the store last applied (no call when nothing changed: a
renewal sends nothing); a reconciliation reads the member from Discord and repairs drift (a role
removed by hand, a member who left and rejoined).

Per role: done (applied), retry (a 429 beyond the adapter's wait, a 5xx, no answer: the caller
retries the whole run later), refused (a 4xx another attempt will not change; the role
hierarchy's 403 among them: shown to the owner, not retried), waiting (the member is not in the
guild and the store may not add them: granted when they join and the next reconciliation runs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from webstore.discord import UNKNOWN_MEMBER, DiscordApi, DiscordRefused, DiscordRetryLater
from webstore.discord.entitlements import GuildRoles, RoleChange, guild_roles, role_change, standing_packages
from webstore.event_types import TIMED_PACKAGE_EXPIRED, EventType
from webstore.events import DomainEvent
from webstore.repo.discord import DeliveryEntry, DiscordLink, DiscordRepository, new_delivery_id
from webstore.repo.players import PlayerRepository
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.sealing import open_sealed
from webstore.services import Services

PAYMENTS_READ = 500
RECONCILE = "reconcile"


@dataclass
class SyncResult:
    entries: list[DeliveryEntry] = field(default_factory=list)

    @property
    def retry_needed(self) -> bool:
        return any(e.status == "retry" for e in self.entries)

    @property
    def calls(self) -> int:
        return sum(1 for e in self.entries if e.status == "done")


class DiscordRetryNeeded(Exception):
    """Raised by a consumer so its message is retried; says which roles are still owed."""

    def __init__(self, result: SyncResult) -> None:
        owed = [(e.action, e.guild_id, e.role_id) for e in result.entries if e.status == "retry"]
        super().__init__(f"Discord roles not applied yet: {owed}")
        self.result = result


def players_of(subject: dict[str, Any]) -> set[int]:
    """The players an event's subject (a payment's, or a recurring payment's) gives packages to."""
    payments = [subject, subject.get("last_payment") or {}, subject.get("initial_payment") or {}]
    found: set[int] = set()
    for payment in payments:
        for product in payment.get("products") or ():
            player_id = ((product or {}).get("username") or {}).get("id")
            if isinstance(player_id, str) and player_id.isdigit():
                found.add(int(player_id))
    return found


def wanted_roles(
    services: Services, account_id: int, username_id: int, now: datetime
) -> dict[str, GuildRoles]:
    """Per guild of the store's rules: the roles this player should hold now."""
    rules = DiscordRepository(services.table).rules(account_id)
    if not rules:
        return {}
    _, payments = PlayerRepository(services.table).with_payments(account_id, username_id, PAYMENTS_READ)
    recurring_repo = RecurringPaymentRepository(services.table)
    references = {p.recurring_payment_reference for p in payments if p.recurring_payment_reference}
    subscriptions = [
        s for s in (recurring_repo.get(account_id, r, consistent=False) for r in sorted(references)) if s
    ]
    bought = {line.package_id for p in payments for line in p.lines if line.username_id == username_id}
    timers = [
        t
        for t in (
            recurring_repo.get_timed(account_id, username_id, r.package_id)
            for r in rules
            if r.package_id in bought
        )
        if t is not None
    ]
    standing = standing_packages(username_id, payments, subscriptions, timers, now)
    return guild_roles(rules, standing)


def sync_player(
    services: Services,
    api: DiscordApi,
    account_id: int,
    username_id: int,
    now: datetime,
    *,
    trigger: str,
    reconcile: bool = False,
) -> SyncResult:
    """Grant and revoke what differs for one player (nothing when they linked no Discord account
    or the store has no rules); the log gets one entry per call made or owed."""
    repo = DiscordRepository(services.table)
    link = repo.link(account_id, username_id)
    if link is None:
        return SyncResult()
    per_guild = wanted_roles(services, account_id, username_id, now)
    applied = repo.applied(account_id, username_id)
    result = SyncResult()
    for guild_id, roles in sorted(per_guild.items()):
        before = applied.get(guild_id, frozenset())
        run = _GuildRun(services, api, repo, link, guild_id, now, trigger, result)
        after = run.apply(roles, before, reconcile=reconcile)
        if after != before:
            repo.set_applied(account_id, username_id, guild_id, after, now)
    repo.log(account_id, result.entries)
    return result


@dataclass
class _GuildRun:
    services: Services
    api: DiscordApi
    repo: DiscordRepository
    link: DiscordLink
    guild_id: str
    now: datetime
    trigger: str
    result: SyncResult

    def _entry(self, role_id: str, action: str, status: str, answer: str = "") -> None:
        self.result.entries.append(
            DeliveryEntry(
                id=new_delivery_id(),
                at=self.now,
                username_id=self.link.username_id,
                discord_user_id=self.link.discord_user_id,
                guild_id=self.guild_id,
                role_id=role_id,
                action=action,
                status=status,
                answer=answer,
                trigger=self.trigger,
            )
        )

    def apply(self, roles: GuildRoles, before: frozenset[str], *, reconcile: bool) -> frozenset[str]:
        user = self.link.discord_user_id
        if reconcile:
            try:
                member = self.api.get_member(self.guild_id, user)
            except DiscordRetryLater as exc:
                for role in sorted(roles.wanted - before):
                    self._entry(role, "grant", "retry", str(exc))
                return before
            if member is None:
                return self._join(roles.wanted, before)
            change = role_change(roles, member.roles, applied=before)
            # Roles the store granted that the member no longer holds (removed by hand, or they
            # left) are no longer the store's to take away, unless granted again below.
            before = before & (member.roles | roles.wanted)
        else:
            change = role_change(roles, before)
        return self._change(change, before)

    def _change(self, change: RoleChange, before: frozenset[str]) -> frozenset[str]:
        done_grants: set[str] = set()
        done_revokes: set[str] = set()
        not_member = False
        for role in sorted(change.grant):
            if not_member:
                break
            try:
                self.api.add_role(self.guild_id, self.link.discord_user_id, role, f"Store: {self.trigger}")
            except DiscordRefused as exc:
                if exc.code == UNKNOWN_MEMBER:
                    not_member = True
                    break
                self._entry(role, "grant", "refused", _answer(exc))
                continue
            except DiscordRetryLater as exc:
                self._entry(role, "grant", "retry", _answer(exc))
                continue
            done_grants.add(role)
            self._entry(role, "grant", "done", "204")
        if not_member:
            return self._join(change.grant - done_grants, (before | done_grants))
        for role in sorted(change.revoke):
            try:
                self.api.remove_role(self.guild_id, self.link.discord_user_id, role, f"Store: {self.trigger}")
            except DiscordRefused as exc:
                self._entry(role, "revoke", "refused", _answer(exc))
                continue
            except DiscordRetryLater as exc:
                self._entry(role, "revoke", "retry", _answer(exc))
                continue
            done_revokes.add(role)
            self._entry(role, "revoke", "done", "204")
        return (before | done_grants) - done_revokes

    def _join(self, grant: Iterable[str], before: frozenset[str]) -> frozenset[str]:
        """The member is not in the guild: add them with the roles when the player gave the store
        `guilds.join`, else wait for them to join (the next reconciliation grants the roles)."""
        roles = sorted(grant)
        if not roles:
            return before
        token = self.link.access_token_sealed
        if not token or "guilds.join" not in self.link.scopes:
            for role in roles:
                self._entry(role, "grant", "waiting", "not a member of the guild; granted when they join")
            return before
        try:
            added = self.api.add_member(
                self.guild_id, self.link.discord_user_id, open_sealed(self.services.secrets, token), roles
            )
        except DiscordRefused as exc:
            for role in roles:
                self._entry(role, "join", "refused", _answer(exc))
            return before
        except DiscordRetryLater as exc:
            for role in roles:
                self._entry(role, "join", "retry", _answer(exc))
            return before
        if not added:  # joined meanwhile: Discord ignored the roles
            return self._change(RoleChange(grant=frozenset(roles)), before)
        for role in roles:
            self._entry(role, "join", "done", "201")
        return before | frozenset(roles)


def _answer(exc: DiscordRefused | DiscordRetryLater) -> str:
    answer = f"{exc.status} {exc.body}" if exc.status else str(exc)
    if isinstance(exc, DiscordRetryLater) and exc.retry_after:
        answer += f" (retry after {exc.retry_after:.1f}s)"
    if isinstance(exc, DiscordRefused) and exc.hierarchy:
        answer = "the bot's highest role is not above this role (Discord: " + answer + ")"
    return answer


# The events after which a player's roles may differ: a payment completed, refunded or disputed
# (a chargeback opens a dispute; winning one may make the payment complete again), a subscription
# started, renewed, ended or changed status; a timed package expired. A renewal is among them
# and sends nothing: nothing differs.
ROLE_EVENT_TYPES = frozenset(
    {
        EventType.PAYMENT_COMPLETED,
        EventType.PAYMENT_REFUNDED,
        EventType.PAYMENT_DISPUTE_OPENED,
        EventType.PAYMENT_DISPUTE_WON,
        EventType.PAYMENT_DISPUTE_LOST,
        EventType.PAYMENT_DISPUTE_CLOSED,
        EventType.RECURRING_STARTED,
        EventType.RECURRING_RENEWED,
        EventType.RECURRING_ENDED,
        EventType.RECURRING_STATUS_CHANGED,
        TIMED_PACKAGE_EXPIRED,  # a timed package ran out (the clock's expiry item)
    }
)


def on_event(
    services: Services, api_for: Callable[[int], DiscordApi | None], event: DomainEvent, now: datetime
) -> SyncResult:
    """The roles of every player the event gives packages to, brought up to date (nothing when
    the store connected no Discord application: `api_for` answers None)."""
    result = SyncResult()
    if event.type not in ROLE_EVENT_TYPES:
        return result
    players = players_of(event.subject)
    if not players:
        return result
    api = api_for(event.account_id)
    if api is None:
        return result
    for username_id in sorted(players):
        result.entries += sync_player(
            services, api, event.account_id, username_id, now, trigger=event.type
        ).entries
    return result
