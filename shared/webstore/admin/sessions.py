"""Staff sessions: a signed cookie, checked against the member item on every request.

The cookie (`webstore_panel`) carries the account, the member, the member's session version,
a random nonce and the expiry, signed (itsdangerous, HMAC-SHA1 over a key derived from the stage
key) so it cannot be forged or altered. It is not a bearer of rights by itself: every request
reads the member item (one GetItem, beside the page's own reads), and a cookie whose version is
not the member's current one (logout, password change) or whose member is gone (removed) is
refused. The role comes from the item, so a role change applies at once.

The CSRF token is an HMAC of the session's nonce: bound to the session, nothing stored.
"""

from __future__ import annotations

import secrets
from concurrent.futures import Future
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from itsdangerous import BadSignature, URLSafeSerializer

from webstore.admin.roles import Capability, Role, allowed
from webstore.errors import Conflict, Forbidden, Unauthorized
from webstore.repo import start_read
from webstore.repo.staff import StaffMember, StaffRepository
from webstore.services import Services

COOKIE_NAME = "webstore_panel"
_SALT = "webstore-panel-session"


class StaffSession:
    """A signed-in staff member, as every panel page receives it.

    What the signed cookie proves (the store, the member, the CSRF token) is known at once; who
    the member is now (address, role, whether the session still stands) comes from the member
    item, read beside the page's own reads (`pending`: a read already issued) and confirmed the
    first time the page asks for it. Asking (`email`, `role`, `may`, `confirm`) is the check:
    a session that no longer stands raises `SignInRequired`, and a role without the route's
    capability (`required`, from the route's declaration) raises `Forbidden`.
    """

    def __init__(
        self,
        *,
        account_id: int,
        staff_id: str,
        csrf_token: str,
        version: int,
        expires_at: int,
        member: StaffMember | Future[StaffMember | None] | None,
        required: Capability | None = None,
        sign_in: str = "/login",
    ) -> None:
        self.account_id = account_id
        self.staff_id = staff_id
        self.csrf_token = csrf_token
        self.version = version
        self.expires_at = expires_at
        self.required = required
        self.sign_in = sign_in
        self._pending = member
        self._member: StaffMember | None = None

    def confirm(self) -> StaffMember:
        """The member item, once the session and the route's capability are checked."""
        if self._member is None:
            pending = self._pending
            member = pending.result() if isinstance(pending, Future) else pending
            if member is None or member.session_version != self.version:
                raise SignInRequired(self.sign_in)
            if self.required is not None and not allowed(member.role, self.required):
                raise Forbidden(f"Your role ({member.role.label}) may not do this; ask the store's owner.")
            self._member = member
        return self._member

    @property
    def email(self) -> str:
        return self.confirm().email

    @property
    def role(self) -> Role:
        return self.confirm().role

    def may(self, capability: Capability) -> bool:
        """Whether the member's role has `capability` (to show a page's controls or not)."""
        return allowed(self.role, capability)


class SignInRequired(Unauthorized):
    """No valid session: the panel answers with the sign-in page (303), then comes back."""

    def __init__(self, location: str) -> None:
        super().__init__("Sign in to continue")
        self.location = location


class CsrfRefused(Forbidden):
    """A state-changing request without its session's CSRF token: nothing is done."""

    def __init__(self) -> None:
        super().__init__(
            "This form has expired or did not come from the panel; refresh the page and try again."
        )


@dataclass(frozen=True)
class SessionCookie:
    """What a sign-in sets: the cookie's value and how long it lives (seconds)."""

    value: str
    max_age: int


def _serializer(services: Services) -> URLSafeSerializer:
    key = services.secrets.mac("panel-session", "cookie-signing-key").hex()
    return URLSafeSerializer(key, salt=_SALT)


def csrf_token(services: Services, staff_id: str, nonce: str) -> str:
    return services.secrets.mac("panel-csrf", f"{staff_id}:{nonce}").hex()


def issue(services: Services, member: StaffMember, now: datetime) -> SessionCookie:
    """A new session of `member` from `now` (settings.admin_session_hours long)."""
    lifetime = timedelta(hours=services.settings.admin_session_hours)
    payload = {
        "a": member.account_id,
        "s": member.staff_id,
        "v": member.session_version,
        "n": secrets.token_urlsafe(16),
        "e": int((now + lifetime).timestamp()),
    }
    return SessionCookie(_serializer(services).dumps(payload), int(lifetime.total_seconds()))


def reissue(services: Services, session: StaffSession, version: int, now: datetime) -> SessionCookie:
    """A new cookie for the same member at `version` (after its password change ended the
    others), expiring when the old one would have."""
    payload = {
        "a": session.account_id,
        "s": session.staff_id,
        "v": version,
        "n": secrets.token_urlsafe(16),
        "e": session.expires_at,
    }
    return SessionCookie(
        _serializer(services).dumps(payload), max(1, session.expires_at - int(now.timestamp()))
    )


def _payload(services: Services, value: str) -> dict[str, Any] | None:
    try:
        payload = _serializer(services).loads(value)
    except BadSignature:
        return None
    if not isinstance(payload, dict):
        return None
    try:
        int(payload["a"]), str(payload["s"]), int(payload["v"]), str(payload["n"]), int(payload["e"])
    except (KeyError, TypeError, ValueError):
        return None
    return payload


def claim(
    services: Services,
    value: str | None,
    now: datetime,
    *,
    required: Capability | None = None,
    sign_in: str = "/login",
) -> StaffSession | None:
    """The session a cookie value claims, or None (absent, forged, expired): the signature and
    expiry need no round trip. The member item is read beside whatever the request reads next
    (`start_read`, the same round trip) and checked when the page first asks who is signed in."""
    if not value:
        return None
    payload = _payload(services, value)
    if payload is None or int(payload["e"]) <= int(now.timestamp()):
        return None
    account_id, staff_id = int(payload["a"]), str(payload["s"])
    return StaffSession(
        account_id=account_id,
        staff_id=staff_id,
        csrf_token=csrf_token(services, staff_id, str(payload["n"])),
        version=int(payload["v"]),
        expires_at=int(payload["e"]),
        member=start_read(StaffRepository(services.table).member, account_id, staff_id),
        required=required,
        sign_in=sign_in,
    )


def check(services: Services, value: str | None, now: datetime) -> StaffSession | None:
    """The session a cookie value stands for, confirmed now, or None (absent, forged, expired,
    revoked)."""
    session = claim(services, value, now)
    if session is None:
        return None
    try:
        session.confirm()
    except SignInRequired:
        return None
    return session


def csrf_matches(session: StaffSession, sent: str | None) -> bool:
    return bool(sent) and secrets.compare_digest(session.csrf_token, sent or "")


def end(services: Services, session: StaffSession) -> None:
    """Log out: every session of the member (this one included) ends."""
    # Conflict: already ended (another tab logged out, the password changed).
    with suppress(Conflict):
        StaffRepository(services.table).bump_session_version(
            session.account_id, session.staff_id, session.version
        )
