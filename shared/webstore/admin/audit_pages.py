"""The audit log (`/audit`): who changed what and when, newest first (one Query a page)."""

from __future__ import annotations

from urllib.parse import urlencode

from webstore.admin.catalog_pages import when
from webstore.admin.flow import PanelPage
from webstore.html import fragment
from webstore.repo.audit_log import AuditLog
from webstore.services import Services


def audit_page(services: Services, account_id: int, cursor: str | None) -> PanelPage:
    """Who changed what and when, newest first: one Query a page."""
    page = AuditLog(services.table).page(account_id, cursor or None)
    older = f"/audit?{urlencode({'cursor': page.next_cursor})}" if page.next_cursor else ""
    body = fragment("panel/audit/log.html", entries=page.entries, when=when, older=older)
    return PanelPage("Audit log", body, "audit")
