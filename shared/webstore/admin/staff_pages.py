"""The staff page (`/staff`): the store's members, and for an owner the invite, change-role and
remove forms; the invited member's password, shown once. HTTP-free. One's own account (password,
second factor) is webstore.admin.account_pages."""

from __future__ import annotations

from datetime import datetime
from string import Template

from webstore.admin import staff
from webstore.admin.layout import csrf_field, panel_page
from webstore.admin.roles import Capability, Role
from webstore.admin.sessions import StaffSession
from webstore.domain.roles import ROLE_LABELS
from webstore.errors import DomainError
from webstore.repo.staff import StaffMember
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.storefront.pages import PageResult, Safe, fill

# `?done=` of the Post/Redirect/Get: a fixed message per key (nothing a link could make up).
DONE = {
    "role": "Role changed.",
    "removed": "Staff member removed; their sessions have ended.",
}

_STAFF = Template("""<h1>Staff</h1>
$error<div class="scroll"><table id="staff">
<thead><tr><th>Email</th><th>Role</th><th>Since</th><th></th></tr></thead>
<tbody>
$rows</tbody></table></div>
$invite""")
_ROW = Template(
    '<tr data-email="$email"><td>$email$you</td><td>$role</td><td>$since</td><td>$controls</td></tr>\n'
)
_CONTROLS = Template("""<form method="post" action="/staff/$id/role" class="inline">$csrf
<label class="inline" for="role-$id">Role</label>
<select id="role-$id" name="role">$options</select>
<button type="submit" class="plain">Change role</button></form>
<form method="post" action="/staff/$id/remove" class="inline">$csrf
<button type="submit" class="danger" id="remove-$id">Remove</button></form>""")
_OPTION = Template('<option value="$value"$selected>$label</option>')
_INVITE = Template("""<h2>Invite a member</h2>
<form method="post" action="/staff" id="invite">$csrf
<label for="email">Email</label>
<input id="email" name="email" type="email" required value="$email">
<label for="role">Role</label>
<select id="role" name="role">$options</select>
<p class="help">Admin: everything but staff. Support: payments, players and the command queue.
Read-only: sees everything it may, changes nothing.</p>
<p><button type="submit">Invite</button></p>
</form>""")
_ERROR = Template('<p class="error" id="error" role="alert">$text</p>\n')
_INVITED = Template("""<h1>Member invited</h1>
<div class="secret" id="invited"><p><strong>$email</strong> ($role) can now sign in at this panel
with the password below. It is shown <strong>once</strong>: pass it on now; they can change it
under their account.</p>
<p>Password: <code id="password">$password</code></p></div>
<p><a href="/staff">Back to the staff</a></p>""")


def _options(selected: Role | None) -> Safe:
    return Safe(
        "".join(
            fill(
                _OPTION,
                value=role.value,
                label=label,
                selected=Safe(" selected") if role is selected else Safe(""),
            )
            for role, label in ROLE_LABELS.items()
        )
    )


def _row(session: StaffSession, member: StaffMember, manage: bool) -> Safe:
    mine = member.staff_id == session.staff_id
    controls = Safe("")
    if manage and not mine:
        controls = fill(
            _CONTROLS, id=member.staff_id, csrf=csrf_field(session), options=_options(member.role)
        )
    return fill(
        _ROW,
        email=member.email,
        you=Safe(" <em>(you)</em>") if mine else Safe(""),
        role=member.role.label,
        since=member.created_at.strftime("%Y-%m-%d"),
        controls=controls,
    )


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
    manage = session.may(Capability.STAFF_MANAGE)
    rows = Safe("".join(_row(session, m, manage) for m in listed))
    invite = (
        fill(_INVITE, csrf=csrf_field(session), email=email, options=_options(Role.SUPPORT))
        if manage
        else Safe("")
    )
    body = fill(_STAFF, error=fill(_ERROR, text=error) if error else Safe(""), rows=rows, invite=invite)
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
    body = fill(
        _INVITED, email=created.member.email, role=created.member.role.label, password=created.password
    )
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
