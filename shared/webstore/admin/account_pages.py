"""One's own account page (`/account`): the password form and the second factor (set up,
confirm with a code, remove); the new secret is shown once. HTTP-free."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from webstore.admin import sessions, staff
from webstore.admin.layout import csrf_field, panel_page
from webstore.admin.sessions import SessionCookie, StaffSession
from webstore.admin.staff_pages import store_name
from webstore.errors import Invalid
from webstore.html import PageResult, fragment
from webstore.services import Services

# `?done=` of the Post/Redirect/Get: a fixed message per key (nothing a link could make up).
DONE = {
    "password": "Password changed. Your other sessions have ended.",
    "totp": "Second factor enrolled: signing in now asks for a code.",
    "totp-removed": "Second factor removed.",
}


def account_page(
    services: Services, session: StaffSession, *, done: str = "", error: str = "", status: int = 200
) -> PageResult:
    """Round trips: the member (its second factor) and the store item, together, after the session's."""
    from webstore.repo import start_read

    store_read = start_read(store_name, services, session.account_id)
    member = staff.member_of(services, session.account_id, session.staff_id)
    body = fragment(
        "panel/account/account.html",
        email=session.email,
        role=session.role.label,
        totp=bool(member.totp_sealed),
        csrf=csrf_field(session),
        error=error,
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
    body = fragment("panel/account/enrol.html", enrolment=enrolment, csrf=csrf_field(session), error=error)
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
