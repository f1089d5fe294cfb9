"""Who may do what in the control panel: four roles (webstore.domain.roles), each a fixed set of
capabilities.

A page asks `require(session, capability)` before it reads or writes; the navigation shows only
the sections whose capability the role has (`allowed`). Hiding a control is a courtesy, the
check is the rule.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol

from webstore.domain.roles import Role
from webstore.errors import Forbidden

__all__ = ["CAPABILITIES", "Capability", "HasRole", "Role", "allowed", "parse_role", "require"]


class Capability(StrEnum):
    DASHBOARD_READ = "dashboard:read"
    CATALOG_READ = "catalog:read"
    CATALOG_WRITE = "catalog:write"
    PAYMENTS_READ = "payments:read"
    PAYMENTS_WRITE = "payments:write"
    PLAYERS_READ = "players:read"
    PLAYERS_WRITE = "players:write"
    QUEUE_READ = "queue:read"
    QUEUE_WRITE = "queue:write"
    SERVERS_READ = "servers:read"
    SERVERS_WRITE = "servers:write"
    WEBHOOKS_READ = "webhooks:read"
    WEBHOOKS_WRITE = "webhooks:write"
    SETTINGS_READ = "settings:read"
    SETTINGS_WRITE = "settings:write"
    AUDIT_READ = "audit:read"
    STAFF_READ = "staff:read"
    STAFF_MANAGE = "staff:manage"

    @property
    def reads(self) -> bool:
        return self.value.endswith(":read")


_EVERYTHING = frozenset(Capability)
_READS = frozenset(c for c in Capability if c.reads)
# Support answers players: their payments, their bans, their commands. Nothing of the catalog,
# the servers, the webhooks, the settings or the staff.
_SUPPORT = frozenset(
    {
        Capability.DASHBOARD_READ,
        Capability.PAYMENTS_READ,
        Capability.PAYMENTS_WRITE,
        Capability.PLAYERS_READ,
        Capability.PLAYERS_WRITE,
        Capability.QUEUE_READ,
        Capability.QUEUE_WRITE,
    }
)

CAPABILITIES: dict[Role, frozenset[Capability]] = {
    Role.OWNER: _EVERYTHING,
    # An admin runs the store but cannot manage staff (nor so make itself owner).
    Role.ADMIN: _EVERYTHING - {Capability.STAFF_MANAGE},
    Role.SUPPORT: _SUPPORT,
    Role.READONLY: _READS - {Capability.STAFF_READ},
}


class HasRole(Protocol):
    @property
    def role(self) -> Role: ...


def allowed(role: Role, capability: Capability) -> bool:
    return capability in CAPABILITIES[role]


def require(session: HasRole, capability: Capability) -> None:
    """Forbidden (the panel's 403 page) unless the session's role has `capability`."""
    if not allowed(session.role, capability):
        raise Forbidden(f"Your role ({session.role.label}) may not do this; ask the store's owner.")


def parse_role(value: str, *, field: str = "role") -> Role:
    """A role named in a form; Invalid naming the field otherwise."""
    from webstore.errors import Invalid

    try:
        return Role(value.strip().lower())
    except ValueError:
        names = ", ".join(r.value for r in Role)
        raise Invalid(f"{field} must be one of {names}", field=field) from None
