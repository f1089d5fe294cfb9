"""The audit log: who changed what in a store and when (every import, every panel change).

One item per change in the store's own partition (`AUDIT#{account}`), its SK the moment and a
random suffix, so the newest-first list is one Query in the database whatever the log's length,
paged with a cursor (the SK of the last entry shown). Entries are written once and never
changed; a change that writes in a transaction adds `AuditLog.item(...)` to it, so the entry and
the change commit together.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from webstore import keys
from webstore.catalog import Model
from webstore.db import Item, Table, Transaction, from_item, to_item
from webstore.errors import Invalid

ENTRIES_PER_PAGE = 50
# Long summaries (an import of hundreds of packages) are cut here: the item stays small.
SUMMARY_LIMIT = 2000
_CURSOR = re.compile(r"^[0-9]{8}T[0-9]{6}\.[0-9]{6}Z#[0-9a-f]{8}$")


class AuditEntry(Model):
    at: datetime
    actor: str  # a staff member's email, or "import" (`webstore import`, `serve --catalog`)
    action: str  # what was done, e.g. "catalog.import", "catalog.package.update", "staff.invite"
    summary: str  # what changed, e.g. "+2 packages, ~1 coupon"


@dataclass
class AuditPage:
    entries: list[AuditEntry]
    next_cursor: str | None  # give it back to `page` for the next (older) entries; None: the end


def audit_pk(account_id: int) -> str:
    return f"AUDIT#{account_id}"


def audit_sk(at: datetime, suffix: str) -> str:
    return f"{at.astimezone(UTC).strftime('%Y%m%dT%H%M%S.%fZ')}#{suffix}"


@dataclass(frozen=True)
class Audit:
    """An entry a repository writes in the change's own transaction (`add_to`): who (`actor`,
    a staff member's email), what (`action`), what changed (`summary`, see `changed`), when."""

    actor: str
    action: str
    summary: str
    at: datetime

    def add_to(self, tx: Transaction, account_id: int) -> None:
        tx.put(
            AuditLog.item(account_id, self.actor, self.action, self.summary, self.at),
            condition="attribute_not_exists(PK)",
        )


def changed(field: str, old: object, new: object, *, secret: bool = False) -> str:
    """One field's change as the log says it: `name: "Lobby" → "Hub"`, `disabled: false → true`;
    a secret's value never: `secret: changed`. Pure."""
    if secret:
        return f"{field}: changed"
    return f"{field}: {_shown(old)} → {_shown(new)}"


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return str(value)


class AuditLog:
    def __init__(self, table: Table) -> None:
        self.table = table

    @staticmethod
    def item(account_id: int, actor: str, action: str, summary: str, now: datetime) -> Item:
        """The entry as an item, for a caller's transaction (`Transaction.put(item, ...)`)."""
        entry = AuditEntry(at=now, actor=actor, action=action, summary=_cut(summary))
        return to_item(entry, audit_pk(account_id), audit_sk(now, secrets.token_hex(4)), "audit_entry")

    def record(self, account_id: int, actor: str, action: str, summary: str, now: datetime) -> AuditEntry:
        """Write one entry on its own (one PutItem); the random suffix keeps two at once apart."""
        item = self.item(account_id, actor, action, summary, now)
        self.table.put(item, condition="attribute_not_exists(PK)")
        return from_item(AuditEntry, item)

    def add_to(
        self, tx: Transaction, account_id: int, actor: str, action: str, summary: str, now: datetime
    ) -> None:
        """The entry as one more action of `tx`: written only if the change commits."""
        tx.put(self.item(account_id, actor, action, summary, now), condition="attribute_not_exists(PK)")

    def page(self, account_id: int, cursor: str | None = None, limit: int = ENTRIES_PER_PAGE) -> AuditPage:
        """Newest first, `limit` entries after `cursor` (one Query). A cursor that is not one
        this list gave is refused as the `cursor` field."""
        start = None
        if cursor is not None:
            if not _CURSOR.match(cursor):
                raise Invalid("cursor is not a position in the audit log", field="cursor")
            start = keys.key(audit_pk(account_id), cursor)
        # One more than shown: whether there is a next page, without an empty last page.
        items, _ = self.table.query(audit_pk(account_id), forward=False, limit=limit + 1, start_key=start)
        shown = items[:limit]
        return AuditPage(
            entries=[from_item(AuditEntry, i) for i in shown],
            next_cursor=str(shown[-1]["SK"]) if len(items) > limit else None,
        )


def _cut(summary: str) -> str:
    return summary if len(summary) <= SUMMARY_LIMIT else summary[: SUMMARY_LIMIT - 1] + "…"
