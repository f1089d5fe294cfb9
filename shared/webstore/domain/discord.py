"""Discord types both the use cases (webstore.discord) and the repository (repo.discord) speak of."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RoleRule:
    """A package's Discord rule: in `guild_id`, the package grants `role_ids`; with
    `remove_on_end`, they are taken away when the package no longer stands."""

    package_id: int
    guild_id: str
    role_ids: frozenset[str]
    remove_on_end: bool = True
