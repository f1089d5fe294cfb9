"""The staff page (`/staff`): the store's members, and for an owner the invite, change-role and
remove forms; the invited member's password, shown once. HTTP-free: each function is a page
(`PanelPage`) or a form's action (where to go next) of webstore.admin.flow. One's own account
(password, second factor) is webstore.admin.account_pages."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from webstore.admin import staff
from webstore.admin.flow import PanelPage, done_at
from webstore.admin.roles import Role
from webstore.admin.sessions import StaffSession
from webstore.domain.roles import ROLE_LABELS
from webstore.html import Markup, fragment
from webstore.repo.store import StoreRepository
from webstore.services import Services

PATH = "/staff"
# `?done=` of the Post/Redirect/Get: a fixed message per key (nothing a link could make up).
DONE = {
    "role": "Role changed.",
    "removed": "Staff member removed; their sessions have ended.",
}

ROLES = [(role.value, label) for role, label in ROLE_LABELS.items()]


def store_name(services: Services, account_id: int) -> str:
    """The store's name, as the shell heads a page with it."""
    return StoreRepository(services.table).store(account_id).name


def staff_page(
    services: Services, session: StaffSession, *, csrf: Callable[[], Markup | None], email: str = ""
) -> PanelPage:
    """The members and, where `csrf()` gives the form field (a role that manages the staff),
    their forms and the invite form (`email`: as typed). Round trips: the members (one Query
    of the account partition's `STAFF#` items, with the store item read beside it) after the
    session's; `csrf` is asked for once they are issued."""
    from webstore.repo import start_read

    store_read = start_read(store_name, services, session.account_id)
    listed = staff.members(services, session)
    field = csrf()
    body = fragment(
        "panel/staff/list.html",
        members=listed,
        me=session.staff_id,
        roles=ROLES,
        invite_role=Role.SUPPORT.value,
        csrf=field,
        email=email,
    )
    return PanelPage("Staff", body, "staff", store=store_read.result())


def invite(services: Services, session: StaffSession, email: str, role: str, now: datetime) -> PanelPage:
    """The invited member's password, shown once (this answer is the only place it appears)."""
    created = staff.invite(services, session, email, role, now)
    body = fragment("panel/staff/invited.html", member=created.member, password=created.password)
    return PanelPage("Member invited", body, "staff", store=store_name(services, session.account_id))


def change_role(services: Services, session: StaffSession, staff_id: str, role: str, now: datetime) -> str:
    staff.change_role(services, session, staff_id, role, now)
    return done_at(PATH, "role")


def remove(services: Services, session: StaffSession, staff_id: str, now: datetime) -> str:
    staff.remove(services, session, staff_id, now)
    return done_at(PATH, "removed")
