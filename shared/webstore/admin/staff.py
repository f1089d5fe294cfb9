"""Staff accounts of the control panel: the first owner, sign-in, invitations, roles.

Use cases take `now`. Passwords are hashed with argon2id (webstore.admin.passwords); a generated
password is returned once to whoever created it and never stored in clear. Sign-in failures are
counted per caller address by the brute-force guard (`STAFF_LOGIN`), and an unknown address and
a wrong password get the same answer, after the same work.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import datetime

from webstore.admin import passwords
from webstore.admin.roles import Role, parse_role
from webstore.admin.sessions import StaffSession
from webstore.errors import Invalid, NotFound, Unauthorized
from webstore.failure_guard import STAFF_LOGIN
from webstore.repo.audit_log import Audit, changed
from webstore.repo.staff import StaffMember, StaffRepository, normal_email
from webstore.sealing import open_sealed, seal
from webstore.services import Services

# One answer to every refused sign-in (unknown address, wrong password, wrong or missing code).
WRONG_CREDENTIALS = "Wrong email or password (or authentication code, if you set one up)."
_EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]{1,190}\.[^@\s.]{1,63}$")


@dataclass(frozen=True)
class NewStaff:
    """A member just created, with its password in clear: shown once, never again."""

    member: StaffMember
    password: str


def check_email(email: str, *, field: str = "email") -> str:
    value = normal_email(email)
    if not _EMAIL.match(value):
        raise Invalid(f"{field} must be an e-mail address such as owner@example.com", field=field)
    return value


def new_staff_id() -> str:
    return secrets.token_hex(8)


def create_member(
    services: Services,
    account_id: int,
    email: str,
    role: Role,
    now: datetime,
    password: str | None = None,
) -> NewStaff:
    """A new member of the store's staff with `password` (checked) or a generated one;
    Conflict naming `email` when the address is already staff in this store (another store's
    staff is not this store's business: docs/panel.md)."""
    address = check_email(email)
    clear = passwords.check_new_password(password) if password is not None else passwords.generate_password()
    member = StaffMember(
        account_id=account_id,
        staff_id=new_staff_id(),
        email=address,
        role=role,
        password_hash=passwords.hash_password(clear, services.settings.password_hash_memory_kib),
        session_version=1,
        created_at=now,
    )
    StaffRepository(services.table).add(member)
    return NewStaff(member, clear)


def create_owner(
    services: Services, account_id: int, email: str, now: datetime, password: str | None = None
) -> NewStaff:
    """The store's owner (`webstore admin create-owner`, `webstore serve`); the store must exist."""
    from webstore.repo.store import StoreRepository

    StoreRepository(services.table).store(account_id)  # NotFound naming the store otherwise
    return create_member(services, account_id, email, Role.OWNER, now, password)


def sign_in(
    services: Services, email: str, password: str, client: str, now: datetime, code: str = ""
) -> StaffMember:
    """The member whose address and password these are; Unauthorized (one message for every
    failure) counted by the guard, Throttled past the allowed failures. Round trips: the address
    lookup and the caller's failure mark together, then the member."""
    clock = int(now.timestamp())
    STAFF_LOGIN.check_remembered(services, client, clock)
    repo = StaffRepository(services.table)
    logins, mark = repo.logins_and_mark(email, STAFF_LOGIN.repository(services), client)
    STAFF_LOGIN.check_mark(services, client, mark, clock)
    memory = services.settings.password_hash_memory_kib
    members = [m for login in logins if (m := repo.member(login.account_id, login.staff_id)) is not None]
    if not members or not password or len(password) > passwords.MAX_LENGTH:
        passwords.password_matches(password or "-", passwords.decoy_hash(memory), memory)
        return _refuse(services, client, clock)
    # An address may be staff in several stores, each with its own password: the password
    # chooses the store (the same one in several: the first store, by id).
    member = next((m for m in members if passwords.password_matches(password, m.password_hash, memory)), None)
    if member is None:
        return _refuse(services, client, clock)
    if member.totp_sealed and not _second_factor(services, member, code, now):
        return _refuse(services, client, clock)
    if passwords.needs_rehash(member.password_hash, memory):
        repo.rehash(
            member.account_id,
            member.staff_id,
            member.password_hash,
            passwords.hash_password(password, memory),
        )
    return member


def _second_factor(services: Services, member: StaffMember, code: str, now: datetime) -> bool:
    """The code of the member's authenticator for now, not used before."""
    from webstore.admin import totp

    assert member.totp_sealed is not None
    step = totp.matching_step(open_sealed(services.secrets, member.totp_sealed), code, now)
    repo = StaffRepository(services.table)
    return step is not None and repo.use_totp_step(member.account_id, member.staff_id, step)


def _refuse(services: Services, client: str, clock: int) -> StaffMember:
    STAFF_LOGIN.count_failure(services, client, clock)
    raise Unauthorized(WRONG_CREDENTIALS)


def member_of(services: Services, account_id: int, staff_id: str) -> StaffMember:
    member = StaffRepository(services.table).member(account_id, staff_id)
    if member is None:
        raise NotFound("No such staff member")
    return member


# --- managing the staff (owners) -----------------------------------------------------------


def _audit(session: StaffSession, action: str, summary: str, now: datetime) -> Audit:
    return Audit(session.email, action, summary, now)


def members(services: Services, session: StaffSession) -> list[StaffMember]:
    return StaffRepository(services.table).members(session.account_id)


def invite(services: Services, session: StaffSession, email: str, role: str, now: datetime) -> NewStaff:
    """A new member of the session's store with a generated password (shown once to the owner,
    who passes it on); recorded in the audit log in the same transaction."""
    address = check_email(email)
    chosen = parse_role(role)
    clear = passwords.generate_password()
    member = StaffMember(
        account_id=session.account_id,
        staff_id=new_staff_id(),
        email=address,
        role=chosen,
        password_hash=passwords.hash_password(clear, services.settings.password_hash_memory_kib),
        session_version=1,
        created_at=now,
    )
    audit = _audit(session, "staff.invite", f"Invited {address} as {chosen.label}", now)
    StaffRepository(services.table).add(member, audit)
    return NewStaff(member, clear)


def _other_member(services: Services, session: StaffSession, staff_id: str, what: str) -> StaffMember:
    """A member of the session's store other than the session's own (an owner stays an owner:
    the store always has one)."""
    if staff_id == session.staff_id:
        raise Invalid(f"You cannot {what} yourself; ask another owner", field="staff_id")
    return member_of(services, session.account_id, staff_id)


def change_role(
    services: Services, session: StaffSession, staff_id: str, role: str, now: datetime
) -> StaffMember:
    member = _other_member(services, session, staff_id, "change the role of")
    chosen = parse_role(role)
    audit = _audit(
        session, "staff.role", f"{member.email}: {changed('role', member.role.label, chosen.label)}", now
    )
    StaffRepository(services.table).set_role(session.account_id, staff_id, chosen, audit)
    return member


def remove(services: Services, session: StaffSession, staff_id: str, now: datetime) -> StaffMember:
    member = _other_member(services, session, staff_id, "remove")
    audit = _audit(session, "staff.remove", f"Removed {member.email} ({member.role.label})", now)
    StaffRepository(services.table).remove(member, audit)
    return member


# --- one's own account -----------------------------------------------------------------------


def _check_password(services: Services, member: StaffMember, password: str, field: str) -> None:
    memory = services.settings.password_hash_memory_kib
    if not password or not passwords.password_matches(password, member.password_hash, memory):
        raise Invalid("That is not your current password", field=field)


def change_password(
    services: Services, session: StaffSession, current: str, new: str, confirm: str, now: datetime
) -> int:
    """A new password for the session's member: every session ends (this one continues with
    the session version returned)."""
    member = member_of(services, session.account_id, session.staff_id)
    _check_password(services, member, current, "current")
    passwords.check_new_password(new, field="new")
    if new != confirm:
        raise Invalid("The new password and its confirmation differ", field="confirm")
    if new == current:
        raise Invalid("The new password must differ from the current one", field="new")
    audit = _audit(
        session, "staff.password", f"{member.email}: {changed('password', None, None, secret=True)}", now
    )
    StaffRepository(services.table).set_password(
        session.account_id,
        session.staff_id,
        passwords.hash_password(new, services.settings.password_hash_memory_kib),
        audit,
        expected_version=session.version,
    )
    return session.version + 1


@dataclass(frozen=True)
class TotpEnrolment:
    """A second factor about to be enrolled: the secret (shown once), its URI, and the secret
    sealed for the confirmation form (opaque to the browser)."""

    secret: str
    uri: str
    sealed: str


def start_totp(services: Services, session: StaffSession, store_name: str) -> TotpEnrolment:
    from webstore.admin import totp

    secret = totp.new_secret()
    return TotpEnrolment(
        secret, totp.provisioning_uri(secret, session.email, store_name), seal(services.secrets, secret)
    )


def confirm_totp(services: Services, session: StaffSession, sealed: str, code: str, now: datetime) -> None:
    """Enrol the secret of `sealed` once a code of it proves the app has it."""
    from webstore.admin import totp
    from webstore.secret_box import SealBroken

    try:
        secret = open_sealed(services.secrets, sealed)
    except SealBroken:
        raise Invalid("The enrolment form has expired; start again", field="sealed") from None
    if totp.matching_step(secret, code, now) is None:
        raise Invalid("That code does not match; check the app's clock and try the next code", field="code")
    audit = _audit(session, "staff.totp", f"{session.email} enrolled a second factor", now)
    StaffRepository(services.table).set_totp(session.account_id, session.staff_id, sealed, audit)


def disable_totp(services: Services, session: StaffSession, password: str, now: datetime) -> None:
    member = member_of(services, session.account_id, session.staff_id)
    _check_password(services, member, password, "password")
    audit = _audit(session, "staff.totp", f"{session.email} removed their second factor", now)
    StaffRepository(services.table).set_totp(session.account_id, session.staff_id, None, audit)
