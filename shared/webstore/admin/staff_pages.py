"""The staff page (`/staff`) and one's own account page (`/account`): rendering and the use
cases' results as pages. HTTP-free."""

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
    "password": "Password changed. Your other sessions have ended.",
    "totp": "Second factor enrolled: signing in now asks for a code.",
    "totp-removed": "Second factor removed.",
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


def _store_name(services: Services, account_id: int) -> str:
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

    store_read = start_read(_store_name, services, session.account_id)
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
    store = _store_name(services, session.account_id)
    return PageResult(200, panel_page("Member invited", body, session=session, section="staff", store=store))


def submit_role(
    services: Services, session: StaffSession, staff_id: str, role: str, now: datetime
) -> PageResult:
    staff.change_role(services, session, staff_id, role, now)
    return PageResult(redirect="/staff?done=role")


def submit_remove(services: Services, session: StaffSession, staff_id: str, now: datetime) -> PageResult:
    staff.remove(services, session, staff_id, now)
    return PageResult(redirect="/staff?done=removed")


# --- one's own account ---------------------------------------------------------------------

_ACCOUNT = Template("""<h1>Your account</h1>
<p class="help">$email · $role</p>
$error<h2>Password</h2>
<form method="post" action="/account/password" id="password-form">$csrf
<label for="current">Current password</label>
<input id="current" name="current" type="password" autocomplete="current-password" required>
<label for="new">New password (at least 10 characters)</label>
<input id="new" name="new" type="password" autocomplete="new-password" required minlength="10">
<label for="confirm">New password again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" required>
<p><button type="submit">Change password</button></p>
</form>
<h2>Second factor</h2>
$totp""")
_TOTP_OFF = Template("""<p>Not set up. With a second factor, signing in also asks for a code from an
authenticator app on your phone.</p>
<form method="post" action="/account/totp" id="totp-start">$csrf
<button type="submit">Set up a second factor</button></form>""")
_TOTP_ON = Template("""<p id="totp-on">On: signing in asks for a code from your authenticator app.</p>
<form method="post" action="/account/totp/remove" id="totp-remove">$csrf
<label for="totp-password">Your password, to remove it</label>
<input id="totp-password" name="password" type="password" autocomplete="current-password" required>
<p><button type="submit" class="danger">Remove the second factor</button></p></form>""")
_ENROL = Template("""<h1>Set up a second factor</h1>
$error<div class="secret" id="enrolment"><p>Add this account to your authenticator app: scan or open the
link below, or type the key. The key is shown <strong>once</strong>.</p>
<p>Key: <code id="totp-secret">$secret</code></p>
<p>Link: <a href="$uri" id="totp-uri"><code>$uri</code></a></p></div>
<form method="post" action="/account/totp/confirm" id="totp-confirm">$csrf
<input type="hidden" name="sealed" value="$sealed">
<label for="code">The code the app shows now</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="8">
<p><button type="submit">Turn on</button></p>
</form>""")


def account_page(
    services: Services, session: StaffSession, *, done: str = "", error: str = "", status: int = 200
) -> PageResult:
    """Round trips: the member (its second factor) and the store item, together, after the session's."""
    from webstore.repo import start_read

    store_read = start_read(_store_name, services, session.account_id)
    member = staff.member_of(services, session.account_id, session.staff_id)
    totp = fill(_TOTP_ON if member.totp_sealed else _TOTP_OFF, csrf=csrf_field(session))
    body = fill(
        _ACCOUNT,
        email=session.email,
        role=session.role.label,
        error=fill(_ERROR, text=error) if error else Safe(""),
        csrf=csrf_field(session),
        totp=totp,
    )
    page = panel_page(
        "Your account",
        body,
        session=session,
        section="account",
        store=store_read.result(),
        done=DONE.get(done, ""),
    )
    return PageResult(status, page)


def enrolment_page(
    services: Services, session: StaffSession, *, sealed: str = "", error: str = "", status: int = 200
) -> PageResult:
    """A new secret (or, after a wrong code, the same one again: it is still in the form)."""
    from webstore.admin import totp

    store = _store_name(services, session.account_id)
    if sealed:
        secret = services.secrets.open(sealed)
        enrolment = staff.TotpEnrolment(secret, totp.provisioning_uri(secret, session.email, store), sealed)
    else:
        enrolment = staff.start_totp(services, session, store)
    body = fill(
        _ENROL,
        error=fill(_ERROR, text=error) if error else Safe(""),
        secret=enrolment.secret,
        uri=enrolment.uri,
        csrf=csrf_field(session),
        sealed=enrolment.sealed,
    )
    return PageResult(
        status, panel_page("Second factor", body, session=session, section="account", store=store)
    )
