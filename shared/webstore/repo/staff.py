"""Control-panel staff: `ACCOUNT#a`/`STAFF#{id}` (the member: role, password hash, session
version, optional sealed TOTP secret) and `STAFFEMAIL#{email}`/`ACCOUNT#a` (the sign-in
lookup: which member an address is in store `a`).

The two are written together (a transaction), so an address is at most one member of each
store; it may be staff in several stores, and no store learns of the others (docs/panel.md).
Lookups of tables written before (`STAFFEMAIL#{email}`/`STAFFEMAIL`, one per address) are read
alike and removed with their member; a new member beside one in the same store is refused.

A session is checked by one GetItem on the member item (`member`): its `session_version`
must match the cookie's, so bumping it (logout, password change, removal) ends every session
of that member.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from functools import partial

from webstore import keys
from webstore.db import ConditionFailed, Item, Table, Transaction, start_read
from webstore.domain.roles import Role
from webstore.errors import Conflict, NotFound
from webstore.repo.audit_log import Audit
from webstore.repo.throttle import FailureMark, ThrottleRepository, failure_mark


@dataclass(frozen=True)
class StaffMember:
    account_id: int
    staff_id: str
    email: str
    role: Role
    password_hash: str
    session_version: int
    created_at: datetime
    # The TOTP secret, sealed with the stage key (webstore.secret_box); None: no second factor.
    totp_sealed: str | None = None


@dataclass(frozen=True)
class StaffLogin:
    """What an address signs in as (the lookup item)."""

    account_id: int
    staff_id: str


def _member(item: Item) -> StaffMember:
    return StaffMember(
        account_id=int(item["account_id"]),
        staff_id=str(item["staff_id"]),
        email=str(item["email"]),
        role=Role(str(item["role"])),
        password_hash=str(item["password_hash"]),
        session_version=int(item["session_version"]),
        created_at=datetime.fromisoformat(str(item["created_at"])),
        totp_sealed=str(item["totp_sealed"]) if item.get("totp_sealed") else None,
    )


def normal_email(email: str) -> str:
    return email.strip().lower()


def _login(item: Item) -> StaffLogin:
    return StaffLogin(int(item["account_id"]), str(item["staff_id"]))


MAX_STORES_PER_ADDRESS = 20  # the lookups sign-in reads for one address (one Query page)


class StaffRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    @staticmethod
    def member_key(account_id: int, staff_id: str) -> dict[str, str]:
        return keys.key(keys.account_pk(account_id), keys.staff_sk(staff_id))

    def member(self, account_id: int, staff_id: str) -> StaffMember | None:
        """One GetItem (strongly consistent: a logout or removal must take effect at once)."""
        item = self.table.get(self.member_key(account_id, staff_id), consistent=True)
        return _member(item) if item else None

    def logins_of(self, email: str) -> list[StaffLogin]:
        """Every store's member an address is (usually one): one Query, oldest store first."""
        items, _ = self.table.query(
            keys.staff_email_pk(normal_email(email)), limit=MAX_STORES_PER_ADDRESS, consistent=True
        )
        found = {(login.account_id, login.staff_id): login for login in map(_login, items)}
        return sorted(found.values(), key=lambda login: login.account_id)

    def login_of(self, email: str, account_id: int | None = None) -> StaffLogin | None:
        """The member an address is in store `account_id` (None: in its first store)."""
        logins = [x for x in self.logins_of(email) if account_id is None or x.account_id == account_id]
        return logins[0] if logins else None

    def logins_and_mark(
        self, email: str, marks: ThrottleRepository, client: str
    ) -> tuple[list[StaffLogin], FailureMark | None]:
        """Which members an address is and the caller's failure mark: one round trip (a Query
        beside a GetItem)."""
        mark = start_read(partial(self.table.get, consistent=True), marks.mark_key(client))
        return self.logins_of(email), failure_mark(mark.result())

    def members(self, account_id: int, limit: int = 200) -> list[StaffMember]:
        """The store's staff (a store has a handful): one Query."""
        items, _ = self.table.query(keys.account_pk(account_id), sk_prefix=keys.STAFF_PREFIX, limit=limit)
        return sorted((_member(i) for i in items), key=lambda m: (m.created_at, m.email))

    def add(self, member: StaffMember, audit: Audit | None = None) -> None:
        """The member and its address's lookup, together (with `audit`, its audit-log entry, in
        the same transaction); Conflict naming `email` when the address is taken."""
        tx = Transaction(self.table)
        email = normal_email(member.email)
        taken = Conflict(f"{email} already has a staff account in this store", field="email")
        tx.put(
            {
                **keys.staff_email_key(email, member.account_id),
                "entity": "staff_email",
                "account_id": member.account_id,
                "staff_id": member.staff_id,
            },
            condition="attribute_not_exists(PK)",
            fails=taken,
        )
        tx.check(  # a lookup written before addresses were per store, naming this store
            keys.legacy_staff_email_key(email),
            "attribute_not_exists(PK) OR account_id <> :a",
            values={":a": member.account_id},
            fails=taken,
        )
        item: dict[str, object] = {
            **self.member_key(member.account_id, member.staff_id),
            "entity": "staff",
            "account_id": member.account_id,
            "staff_id": member.staff_id,
            "email": email,
            "role": member.role.value,
            "password_hash": member.password_hash,
            "session_version": member.session_version,
            "created_at": member.created_at.isoformat(),
        }
        if member.totp_sealed:
            item["totp_sealed"] = member.totp_sealed
        tx.put(item, condition="attribute_not_exists(PK)", fails=Conflict("That staff id is taken"))
        _audited(tx, member.account_id, audit).commit()

    def bump_session_version(self, account_id: int, staff_id: str, expected: int) -> None:
        """End every session of the member (logout): the version moves on, unless it already has."""
        self.table.update(
            self.member_key(account_id, staff_id),
            "SET session_version = session_version + :one",
            condition="attribute_exists(PK) AND session_version = :expected",
            values={":one": 1, ":expected": expected},
            fails=Conflict("The session had already ended"),
        )

    def set_password(
        self,
        account_id: int,
        staff_id: str,
        password_hash: str,
        audit: Audit | None = None,
        *,
        expected_version: int | None = None,
    ) -> None:
        """A new password hash; every session ends with it (the version moves on). With
        `expected_version`, only from that version (Conflict: the session ended meanwhile)."""
        condition, values = "attribute_exists(PK)", {":hash": password_hash, ":one": 1}
        if expected_version is not None:
            condition += " AND session_version = :expected"
            values[":expected"] = expected_version
        tx = Transaction(self.table)
        tx.update(
            self.member_key(account_id, staff_id),
            "SET password_hash = :hash, session_version = session_version + :one",
            condition=condition,
            values=values,
            fails=Conflict("Your session ended meanwhile; sign in again"),
        )
        _audited(tx, account_id, audit).commit()

    def rehash(self, account_id: int, staff_id: str, old_hash: str, new_hash: str) -> None:
        """Replace a hash made with older parameters (sessions stay); nothing if it changed."""
        with suppress(ConditionFailed):
            self.table.update(
                self.member_key(account_id, staff_id),
                "SET password_hash = :new",
                condition="password_hash = :old",
                values={":new": new_hash, ":old": old_hash},
            )

    def set_role(self, account_id: int, staff_id: str, role: Role, audit: Audit | None = None) -> None:
        """A new role: the member's next request has it (sessions read the role from here)."""
        tx = Transaction(self.table)
        tx.update(
            self.member_key(account_id, staff_id),
            "SET #role = :role",
            condition="attribute_exists(PK)",
            names={"#role": "role"},
            values={":role": role.value},
            fails=NotFound("No such staff member"),
        )
        _audited(tx, account_id, audit).commit()

    def set_totp(
        self, account_id: int, staff_id: str, sealed: str | None, audit: Audit | None = None
    ) -> None:
        """Enrol (a sealed secret) or drop (None) the second factor."""
        tx = Transaction(self.table)
        if sealed is None:
            tx.update(
                self.member_key(account_id, staff_id),
                "REMOVE totp_sealed, totp_last_step",
                condition="attribute_exists(PK)",
                fails=NotFound("No such staff member"),
            )
        else:
            tx.update(
                self.member_key(account_id, staff_id),
                "SET totp_sealed = :sealed REMOVE totp_last_step",
                condition="attribute_exists(PK)",
                values={":sealed": sealed},
                fails=NotFound("No such staff member"),
            )
        _audited(tx, account_id, audit).commit()

    def use_totp_step(self, account_id: int, staff_id: str, step: int) -> bool:
        """Claim a TOTP time step for a sign-in: False when it (or a later one) was used already,
        so a code seen over a shoulder cannot be replayed within its window."""
        try:
            self.table.update(
                self.member_key(account_id, staff_id),
                "SET totp_last_step = :step",
                condition="attribute_exists(PK) AND "
                "(attribute_not_exists(totp_last_step) OR totp_last_step < :step)",
                values={":step": step},
            )
        except ConditionFailed:
            return False
        return True

    def remove(self, member: StaffMember, audit: Audit | None = None) -> None:
        """The member and its address's lookup, together (its sessions end: no item to match)."""
        tx = Transaction(self.table)
        tx.delete(
            self.member_key(member.account_id, member.staff_id),
            condition="attribute_exists(PK)",
            fails=NotFound("No such staff member"),
        )
        tx.delete(keys.staff_email_key(member.email, member.account_id))
        legacy = self.table.get(keys.legacy_staff_email_key(member.email), consistent=True)
        if legacy is not None and _login(legacy) == StaffLogin(member.account_id, member.staff_id):
            tx.delete(keys.legacy_staff_email_key(member.email))
        _audited(tx, member.account_id, audit).commit()


def _audited(tx: Transaction, account_id: int, audit: Audit | None) -> Transaction:
    """`tx` with the audit-log entry of its change (webstore.repo.audit_log), when there is one."""
    if audit is not None:
        audit.add_to(tx, account_id)
    return tx
