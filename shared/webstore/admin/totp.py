"""The optional second factor: time-based one-time codes (RFC 6238, pyotp), 30-second steps.

The secret is shown once at enrolment (as text and as an `otpauth://` URI for authenticator
apps), then stored sealed under the stage key (webstore.secret_box). A code is accepted for the
current step or the one either side (clock drift), and each step once only
(`StaffRepository.use_totp_step`): a code seen over a shoulder cannot be used again.
"""

from __future__ import annotations

import hmac
import re
from datetime import datetime

import pyotp

STEP_SECONDS = 30
_CODE = re.compile(r"^[0-9]{6}$")


def new_secret() -> str:
    return pyotp.random_base32()


def provisioning_uri(secret: str, email: str, issuer: str) -> str:
    return pyotp.TOTP(secret).provisioning_uri(name=email, issuer_name=issuer or "Webstore")


def normal_code(code: str) -> str:
    return re.sub(r"\s+", "", code or "")


def matching_step(secret: str, code: str, now: datetime) -> int | None:
    """The time step whose code `code` is (now, or one step either side); None otherwise."""
    code = normal_code(code)
    if not _CODE.match(code):
        return None
    totp = pyotp.TOTP(secret)
    current = int(now.timestamp()) // STEP_SECONDS
    for step in (current - 1, current, current + 1):
        if hmac.compare_digest(totp.at(step * STEP_SECONDS), code):
            return step
    return None


def code_at(secret: str, now: datetime) -> str:
    """The code of `now`'s step (tests and the enrolment check)."""
    return str(pyotp.TOTP(secret).at(int(now.timestamp())))
