"""One's own account page (`/account`): the password form and the second factor (set up,
confirm with a code, remove); the new secret is shown once. HTTP-free."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from string import Template

from webstore.admin import sessions, staff
from webstore.admin.layout import csrf_field, panel_page
from webstore.admin.sessions import SessionCookie, StaffSession
from webstore.admin.staff_pages import store_name
from webstore.errors import Invalid
from webstore.services import Services
from webstore.storefront.pages import PageResult, Safe, fill

# `?done=` of the Post/Redirect/Get: a fixed message per key (nothing a link could make up).
DONE = {
    "password": "Password changed. Your other sessions have ended.",
    "totp": "Second factor enrolled: signing in now asks for a code.",
    "totp-removed": "Second factor removed.",
}
_ERROR = Template('<p class="error" id="error" role="alert">$text</p>\n')

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

    store_read = start_read(store_name, services, session.account_id)
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

    store = store_name(services, session.account_id)
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


@dataclass(frozen=True)
class PasswordChanged:
    """The answer to the password form: the page (303 to the account, or the form again with
    why) and, once changed, the session's new cookie (the other sessions end)."""

    page: PageResult
    cookie: SessionCookie | None = None


def submit_password(
    services: Services, session: StaffSession, form: Mapping[str, str], now: datetime
) -> PasswordChanged:
    try:
        version = staff.change_password(
            services, session, form.get("current", ""), form.get("new", ""), form.get("confirm", ""), now
        )
    except Invalid as refused:
        return PasswordChanged(account_page(services, session, error=refused.detail, status=422))
    return PasswordChanged(
        PageResult(redirect="/account?done=password"), sessions.reissue(services, session, version, now)
    )


def submit_totp_confirm(
    services: Services, session: StaffSession, form: Mapping[str, str], now: datetime
) -> PageResult:
    """Turn the second factor on with the code the app shows; a wrong code shows the same key
    again (a tampered key: a new one)."""
    sealed, code = form.get("sealed", ""), form.get("code", "")
    try:
        staff.confirm_totp(services, session, sealed, code, now)
    except Invalid as refused:
        kept = "" if refused.field == "sealed" else sealed
        return enrolment_page(services, session, sealed=kept, error=refused.detail, status=422)
    return PageResult(redirect="/account?done=totp")


def submit_totp_remove(
    services: Services, session: StaffSession, form: Mapping[str, str], now: datetime
) -> PageResult:
    try:
        staff.disable_totp(services, session, form.get("password", ""), now)
    except Invalid as refused:
        return account_page(services, session, error=refused.detail, status=422)
    return PageResult(redirect="/account?done=totp-removed")
