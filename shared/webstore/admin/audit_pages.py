"""The audit log (`/audit`): who changed what and when, newest first (one Query a page)."""

from __future__ import annotations

from urllib.parse import urlencode

from webstore.admin.catalog_pages import when
from webstore.admin.flow import PanelPage
from webstore.repo.audit_log import AuditLog
from webstore.services import Services
from webstore.storefront.pages import Safe, escape


def audit_page(services: Services, account_id: int, cursor: str | None) -> PanelPage:
    """Who changed what and when, newest first: one Query a page."""
    page = AuditLog(services.table).page(account_id, cursor or None)
    rows = "".join(
        "<tr>"
        + f'<td><time datetime="{escape(e.at.isoformat())}">{escape(when(e.at))}</time></td>'
        + f"<td>{escape(e.actor)}</td><td>{escape(e.action)}</td><td>{escape(e.summary)}</td>"
        + "</tr>"
        for e in page.entries
    )
    table = (
        '<div class="scroll"><table><thead><tr><th>When</th><th>Who</th><th>What</th><th>Change</th></tr>'
        f"</thead><tbody>{rows}</tbody></table></div>"
        if rows
        else "<p>Nothing recorded yet.</p>"
    )
    more = (
        f'<p><a rel="next" href="/audit?{urlencode({"cursor": page.next_cursor})}">Older entries</a></p>'
        if page.next_cursor
        else ""
    )
    return PanelPage("Audit log", Safe("<h1>Audit log</h1>" + table + more), "audit")
