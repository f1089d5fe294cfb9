"""The panel's home page: the store's name and the sections the member may open. The dashboard
(branch `stats`) replaces its body with the store's figures."""

from __future__ import annotations

from string import Template

from webstore.admin.layout import SECTIONS, panel_page
from webstore.admin.roles import Capability, allowed, require
from webstore.admin.sessions import StaffSession
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.storefront.pages import PageResult, Safe, fill

_BODY = Template("""<h1>$store</h1>
<p class="help">Signed in as $email ($role).</p>
<div class="cards">
$cards</div>
""")
_CARD = Template('<div class="card"><a href="$href">$label</a></div>\n')


def show(services: Services, session: StaffSession, done: str = "") -> PageResult:
    """Round trips: the store item (the session's member item is the other)."""
    require(session, Capability.DASHBOARD_READ)
    store = StoreRepository(services.table).store(session.account_id)
    cards = Safe(
        "".join(
            fill(_CARD, href=s.href, label=s.label)
            for s in SECTIONS
            if s.key != "dashboard" and allowed(session.role, s.capability)
        )
    )
    body = fill(_BODY, store=store.name, email=session.email, role=session.role.label, cards=cards)
    return PageResult(
        200, panel_page("Dashboard", body, session=session, section="dashboard", store=store.name, done=done)
    )
