"""Staff sessions: a signed cookie, checked against the member item on every request.

The cookie (`webstore_panel`) carries the account, the member, the member's session version,
a random nonce and the expiry, signed (itsdangerous, HMAC-SHA1 over a key derived from the stage
key) so it cannot be forged or altered. It is not a bearer of rights by itself: every request
reads the member item (one GetItem), and a cookie whose version is not the member's current one
(logout, password change) or whose member is gone (removed) is refused. The role comes from the
item, so a role change applies at once.

The CSRF token is an HMAC of the session's nonce: bound to the session, nothing stored.
"""

from __future__ import annotations

import secrets
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from itsdangerous import BadSignature, URLSafeSerializer

from webstore.admin.roles import Role
from webstore.errors import Conflict, Forbidden, Unauthorized
from webstore.repo.staff import StaffMember, StaffRepository
from webstore.services import Services

COOKIE_NAME = "webstore_panel"
_SALT = "webstore-panel-session"


@dataclass(frozen=True)
class StaffSession:
    """A signed-in staff member, as every panel page receives it."""

    account_id: int
    staff_id: str
    email: str
    role: Role
    csrf_token: str
    # The member's session version when it signed in (logout moves it on).
    version: int = 0
    expires_at: int = 0


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


def check(services: Services, value: str | None, now: datetime) -> StaffSession | None:
    """The session a cookie value stands for, or None (absent, forged, expired, revoked): the
    signature and expiry need no round trip; the member item is one GetItem."""
    if not value:
        return None
    payload = _payload(services, value)
    if payload is None or int(payload["e"]) <= int(now.timestamp()):
        return None
    member = StaffRepository(services.table).member(int(payload["a"]), str(payload["s"]))
    if member is None or member.session_version != int(payload["v"]):
        return None
    return StaffSession(
        account_id=member.account_id,
        staff_id=member.staff_id,
        email=member.email,
        role=member.role,
        csrf_token=csrf_token(services, member.staff_id, str(payload["n"])),
        version=member.session_version,
        expires_at=int(payload["e"]),
    )


def csrf_matches(session: StaffSession, sent: str | None) -> bool:
    return bool(sent) and secrets.compare_digest(session.csrf_token, sent or "")


def end(services: Services, session: StaffSession) -> None:
    """Log out: every session of the member (this one included) ends."""
    # Conflict: already ended (another tab logged out, the password changed).
    with suppress(Conflict):
        StaffRepository(services.table).bump_session_version(
            session.account_id, session.staff_id, session.version
        )
