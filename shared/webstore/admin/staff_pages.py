"""The staff page (`/staff`): the store's members, and for an owner the invite, change-role and
remove forms; the invited member's password, shown once. HTTP-free. One's own account (password,
second factor) is webstore.admin.account_pages."""

from __future__ import annotations

from datetime import datetime

from webstore.admin import staff
from webstore.admin.layout import csrf_field, panel_page
from webstore.admin.roles import Capability, Role
from webstore.admin.sessions import StaffSession
from webstore.domain.roles import ROLE_LABELS
from webstore.errors import DomainError
from webstore.html import PageResult, fragment
from webstore.repo.store import StoreRepository
from webstore.services import Services

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
    services: Services,
    session: StaffSession,
    *,
    done: str = "",
    error: str = "",
    email: str = "",
    status: int = 200,
) -> PageResult:
    """Round trips: the members (one Query of the account partition's `STAFF#` items, with the
    store item read beside it) after the session's."""
    from webstore.repo import start_read

    store_read = start_read(store_name, services, session.account_id)
    listed = staff.members(services, session)
    body = fragment(
        "panel/staff/list.html",
        members=listed,
        me=session.staff_id,
        manage=session.may(Capability.STAFF_MANAGE),
        roles=ROLES,
        invite_role=Role.SUPPORT.value,
        csrf=csrf_field(session),
        email=email,
        error=error,
    )
    page = panel_page(
        "Staff", body, session=session, section="staff", store=store_read.result(), done=DONE.get(done, "")
    )
    return PageResult(status, page)


def submit_invite(
    services: Services, session: StaffSession, email: str, role: str, now: datetime
) -> PageResult:
    """The invited member's password, shown once (this answer is the only place it appears);
    the staff page again with the error otherwise."""
    try:
        created = staff.invite(services, session, email, role, now)
    except DomainError as error:
        if error.status in (403, 404):
            raise
        return staff_page(services, session, error=error.detail, email=email, status=error.status)
    body = fragment("panel/staff/invited.html", member=created.member, password=created.password)
    store = store_name(services, session.account_id)
    return PageResult(200, panel_page("Member invited", body, session=session, section="staff", store=store))


def submit_role(
    services: Services, session: StaffSession, staff_id: str, role: str, now: datetime
) -> PageResult:
    staff.change_role(services, session, staff_id, role, now)
    return PageResult(redirect="/staff?done=role")


def submit_remove(services: Services, session: StaffSession, staff_id: str, now: datetime) -> PageResult:
    staff.remove(services, session, staff_id, now)
    return PageResult(redirect="/staff?done=removed")
