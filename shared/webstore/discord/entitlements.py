"""Entitlements, not events: the roles a member should hold, and the change that gets them there.

Pure (no I/O). What a player holds is computed from their payments, subscriptions and timed
packages as they stand now; the roles follow from the store's rules (package → guild, roles,
remove-on-end). Grants and revocations are the difference between those roles and the roles the
member holds (what Discord says on a reconciliation; what the store last applied otherwise):

- a renewal changes nothing that is held, so nothing is sent again;
- an ended package takes away only the roles no active package still grants;
- a role the store does not manage (in no rule of the guild) is never touched, nor one it
  manages but did not grant this member (given by hand);
- a package whose rule keeps its roles after the end (remove-on-end off) leaves them, but they
  are not granted again once someone removed them by hand.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from webstore.domain.discord import RoleRule
from webstore.domain.payment_status import PaymentStatus
from webstore.recurring import RecurringPayment, TimedPackage
from webstore.repo.payments import PaymentRecord

__all__ = ["GuildRoles", "RoleChange", "RoleRule", "guild_roles", "role_change", "standing_packages"]


@dataclass(frozen=True)
class GuildRoles:
    """In one guild: the roles the member should hold (`wanted`), the roles of ended packages
    whose rule keeps them (`kept`), and every role the store's rules name (`managed`)."""

    wanted: frozenset[str] = frozenset()
    kept: frozenset[str] = frozenset()
    managed: frozenset[str] = frozenset()


@dataclass(frozen=True)
class RoleChange:
    grant: frozenset[str] = field(default_factory=frozenset)
    revoke: frozenset[str] = field(default_factory=frozenset)

    @property
    def empty(self) -> bool:
        return not self.grant and not self.revoke


def standing_packages(
    username_id: int,
    payments: Iterable[PaymentRecord],
    subscriptions: Iterable[RecurringPayment],
    timed: Iterable[TimedPackage],
    now: datetime,
) -> dict[int, bool]:
    """Every package the player received, and whether it stands now (True) or ended (False).

    A line counts while its payment is complete (a refund or chargeback ends it); a subscription's
    line also while its recurring payment is ongoing (active or past due: the perk stays during
    the retries); a timed package's line until its timer expires. A package stands when any of
    its lines does.
    """
    ongoing = {s.reference: s.ongoing for s in subscriptions}
    timers = {
        t.package_id: (not t.expired and t.expires_at > now) for t in timed if t.username_id == username_id
    }
    standing: dict[int, bool] = {}
    for payment in payments:
        for line in payment.lines:
            if line.username_id != username_id:
                continue
            holds = payment.status is PaymentStatus.COMPLETE
            if holds and payment.recurring_payment_reference is not None:
                holds = ongoing.get(payment.recurring_payment_reference, False)
            if holds and line.package_id in timers:
                holds = timers[line.package_id]
            standing[line.package_id] = standing.get(line.package_id, False) or holds
    return standing


def guild_roles(rules: Iterable[RoleRule], standing: dict[int, bool]) -> dict[str, GuildRoles]:
    """Per guild the store's rules name: the member's wanted, kept and managed roles."""
    wanted: dict[str, set[str]] = {}
    kept: dict[str, set[str]] = {}
    managed: dict[str, set[str]] = {}
    for rule in rules:
        managed.setdefault(rule.guild_id, set()).update(rule.role_ids)
        held = standing.get(rule.package_id)
        if held:
            wanted.setdefault(rule.guild_id, set()).update(rule.role_ids)
        elif held is False and not rule.remove_on_end:
            kept.setdefault(rule.guild_id, set()).update(rule.role_ids)
    return {
        guild: GuildRoles(
            wanted=frozenset(wanted.get(guild, ())),
            kept=frozenset(kept.get(guild, ())) - frozenset(wanted.get(guild, ())),
            managed=frozenset(roles),
        )
        for guild, roles in managed.items()
    }


def role_change(roles: GuildRoles, held: Iterable[str], applied: Iterable[str] | None = None) -> RoleChange:
    """What to send so a member holding `held` holds what `roles` says: the wanted roles missing,
    and the managed roles held that are neither wanted nor kept.

    `applied` (on a reconciliation, where `held` is what Discord says): the roles the store
    granted this member. Only those are taken away: a managed role the owner gave by hand to
    someone who never bought it stays.
    """
    holding = frozenset(held)
    removable = holding & roles.managed
    if applied is not None:
        removable &= frozenset(applied)
    return RoleChange(grant=roles.wanted - holding, revoke=removable - roles.wanted - roles.kept)
