"""The control panel's staff roles: what a staff member is stored as (repo.staff) and what the
panel's capabilities are granted to (webstore.admin.roles)."""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    OWNER = "owner"
    ADMIN = "admin"
    SUPPORT = "support"
    READONLY = "readonly"

    @property
    def label(self) -> str:
        return ROLE_LABELS[self]


ROLE_LABELS = {
    Role.OWNER: "Owner",
    Role.ADMIN: "Admin",
    Role.SUPPORT: "Support",
    Role.READONLY: "Read-only",
}
