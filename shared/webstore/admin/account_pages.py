"""One's own account page (`/account`): the password form and the second factor (set up,
confirm with a code, remove); the new secret is shown once. HTTP-free: each function is a page
(`PanelPage`) or a form's action (where to go next) of webstore.admin.flow."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from webstore.admin import sessions, staff
from webstore.admin.flow import PanelPage, done_at
from webstore.admin.layout import csrf_field
from webstore.admin.sessions import SessionCookie, StaffSession
from webstore.admin.staff_pages import store_name
from webstore.html import fragment
from webstore.sealing import open_sealed
from webstore.services import Services

PATH = "/account"
# `?done=` of the Post/Redirect/Get: a fixed message per key (nothing a link could make up).
DONE = {
    "password": "Password changed. Your other sessions have ended.",
    "totp": "Second factor enrolled: signing in now asks for a code.",
    "totp-removed": "Second factor removed.",
}


def account_page(services: Services, session: StaffSession) -> PanelPage:
    """Round trips: the member (its second factor) and the store item, together, after the
    session's; the forms' CSRF field is asked for once they are issued."""
    from webstore.repo import start_read

    store_read = start_read(store_name, services, session.account_id)
    member = staff.member_of(services, session.account_id, session.staff_id)
    body = fragment(
        "panel/account/account.html",
        email=session.email,
        role=session.role.label,
        totp=bool(member.totp_sealed),
        csrf=csrf_field(session),
    )
    return PanelPage("Your account", body, "account", store=store_read.result())


def enrolment_page(services: Services, session: StaffSession, *, sealed: str = "") -> PanelPage:
    """A new secret (or, after a wrong code, the same one again: it is still in the form)."""
    from webstore.admin import totp

    store = store_name(services, session.account_id)
    if sealed:
        secret = open_sealed(services.secrets, sealed)
        enrolment = staff.TotpEnrolment(secret, totp.provisioning_uri(secret, session.email, store), sealed)
    else:
        enrolment = staff.start_totp(services, session, store)
    body = fragment("panel/account/enrol.html", enrolment=enrolment, csrf=csrf_field(session))
    return PanelPage("Second factor", body, "account", store=store)


class PasswordChange:
    """The password form's action; once changed, `cookie` is the session's new cookie (every
    other session ends), for the handler to set on the answer."""

    def __init__(self, services: Services, session: StaffSession, form: Mapping[str, str], now: datetime):
        self.services, self.session, self.form, self.now = services, session, form, now
        self.cookie: SessionCookie | None = None

    def __call__(self) -> str:
        form = self.form
        version = staff.change_password(
            self.services,
            self.session,
            form.get("current", ""),
            form.get("new", ""),
            form.get("confirm", ""),
            self.now,
        )
        self.cookie = sessions.reissue(self.services, self.session, version, self.now)
        return done_at(PATH, "password")


def confirm_totp(services: Services, session: StaffSession, form: Mapping[str, str], now: datetime) -> str:
    """Turn the second factor on with the code the app shows."""
    staff.confirm_totp(services, session, form.get("sealed", ""), form.get("code", ""), now)
    return done_at(PATH, "totp")


def kept_enrolment(form: Mapping[str, str], field: str | None) -> str:
    """The sealed key to show again after a refused code (a tampered key: none, a new one)."""
    return "" if field == "sealed" else form.get("sealed", "")


def remove_totp(services: Services, session: StaffSession, form: Mapping[str, str], now: datetime) -> str:
    staff.disable_totp(services, session, form.get("password", ""), now)
    return done_at(PATH, "totp-removed")
