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
from webstore.admin.roles import Role
from webstore.errors import Invalid, NotFound, Unauthorized
from webstore.failure_guard import STAFF_LOGIN
from webstore.repo.staff import StaffMember, StaffRepository, normal_email
from webstore.services import Services

WRONG_CREDENTIALS = "Wrong email or password."
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
    Conflict naming `email` when the address already has a staff account."""
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


def sign_in(services: Services, email: str, password: str, client: str, now: datetime) -> StaffMember:
    """The member whose address and password these are; Unauthorized (one message for every
    failure) counted by the guard, Throttled past the allowed failures. Round trips: the address
    lookup and the caller's failure mark together, then the member."""
    clock = int(now.timestamp())
    STAFF_LOGIN.check_remembered(services, client, clock)
    repo = StaffRepository(services.table)
    lookup, mark = repo.login_and_mark(email, STAFF_LOGIN.repository(services), client)
    STAFF_LOGIN.check_mark(services, client, mark, clock)
    memory = services.settings.password_hash_memory_kib
    member = repo.member(lookup.account_id, lookup.staff_id) if lookup else None
    if member is None or not password or len(password) > passwords.MAX_LENGTH:
        passwords.password_matches(password or "-", passwords.decoy_hash(memory), memory)
        return _refuse(services, client, clock)
    if not passwords.password_matches(password, member.password_hash, memory):
        return _refuse(services, client, clock)
    if passwords.needs_rehash(member.password_hash, memory):
        repo.rehash(
            member.account_id,
            member.staff_id,
            member.password_hash,
            passwords.hash_password(password, memory),
        )
    return member


def _refuse(services: Services, client: str, clock: int) -> StaffMember:
    STAFF_LOGIN.count_failure(services, client, clock)
    raise Unauthorized(WRONG_CREDENTIALS)


def member_of(services: Services, account_id: int, staff_id: str) -> StaffMember:
    member = StaffRepository(services.table).member(account_id, staff_id)
    if member is None:
        raise NotFound("No such staff member")
    return member
