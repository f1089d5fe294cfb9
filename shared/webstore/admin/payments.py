"""The panel's payments: search, one payment with the delivery state of its commands, and the
actions on it (refund, chargeback, note, resend), each the operator interface's use case.

Search: each way is a key lookup or a Query of bounded size, newest first, paged by a cursor
(docs/data-model.md, "The panel's payment search"):

- transaction id: GetItem `PAY#`;
- player (name or UUID): the pointer GetItem, then the player's GSI1 partition;
- status (and a date range): the status's GSI2 partition, the range a key condition;
- date range alone: the three status partitions of GSI2, read in parallel and merged;
- package: a filter (`contains(package_ids, …)`) on whichever of the above applies, else on
  the account's `PAY#` range, reading at most SEARCH_WINDOW items per partition and page;
- nothing: the account's `PAY#` range.
What a way cannot key on (a status or date on a player's payments) is a filter too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime

from webstore import keys
from webstore.domain.payment_status import PaymentStatus
from webstore.errors import Invalid
from webstore.operator.players import is_uuid, normalize_uuid
from webstore.payments import changes, refunds
from webstore.payments.resend import resend_commands
from webstore.repo import start_read
from webstore.repo.account import AccountRepository
from webstore.repo.audit_log import Audit, changed
from webstore.repo.payment_commands import PaymentCommandRepository
from webstore.repo.payment_search import GSI1, GSI2, Filter, PaymentSearchRepository, Source
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.repo.players import PlayerRepository
from webstore.repo.queue import QueuedCommand
from webstore.services import Services

PER_PAGE = 25
# Items a filtered search reads per partition and page (bounded whatever the store's size).
SEARCH_WINDOW = 100
# Commands whose queue state a payment's page checks (one BatchGetItem).
COMMANDS_CHECKED = 100
MAX_NAME = 64

_TRANSACTION = re.compile(r"^tbx-[0-9]{1,10}-[0-9a-f]{8}$")
_DAY = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_CURSORS = {
    "time": re.compile(r"^[0-9]{8}T[0-9]{6}\.[0-9]{6}Z#[0-9]{10}$"),  # GSI2SK
    "id": re.compile(r"^PAY#[0-9]{10}$"),  # SK, GSI1SK
}


# --- search criteria (pure) ---------------------------------------------------------------------


@dataclass(frozen=True)
class PaymentSearch:
    """What the search form asked for; empty fields are None."""

    player: str | None = None
    transaction: str | None = None
    package_id: int | None = None
    status: PaymentStatus | None = None
    date_from: date | None = None
    date_to: date | None = None
    cursor: str | None = None

    @property
    def dated(self) -> bool:
        return self.date_from is not None or self.date_to is not None

    @property
    def cursor_kind(self) -> str:
        """Which sort key this search's pages continue from."""
        if self.player is None and (self.status is not None or self.dated):
            return "time"
        return "id"

    def query(self, cursor: str | None) -> dict[str, str]:
        """The form's fields for the same search from `cursor` (for links; empty ones left out)."""
        fields = {
            "player": self.player or "",
            "transaction": self.transaction or "",
            "package": str(self.package_id) if self.package_id else "",
            "status": self.status.value if self.status else "",
            "from": self.date_from.isoformat() if self.date_from else "",
            "to": self.date_to.isoformat() if self.date_to else "",
            "cursor": cursor or "",
        }
        return {k: v for k, v in fields.items() if v}


def _day(value: str, field: str) -> date:
    if not _DAY.match(value):
        raise Invalid(f"{field} must be a date (YYYY-MM-DD)", field=field)
    try:
        return date.fromisoformat(value)
    except ValueError as error:
        raise Invalid(f"{field} must be a date (YYYY-MM-DD)", field=field) from error


def parse_search(fields: Mapping[str, str]) -> PaymentSearch:
    """The search form's fields (query parameters), checked: 422 naming the field. Pure."""
    values = {k: (fields.get(k) or "").strip() for k in ("player", "transaction", "package", "status")}
    values.update({k: (fields.get(k) or "").strip() for k in ("from", "to", "cursor")})
    player = values["player"] or None
    if player is not None and not (is_uuid(player) or 1 <= len(player) <= MAX_NAME):
        raise Invalid(f"player is a username (at most {MAX_NAME} characters) or a UUID", field="player")
    transaction = values["transaction"] or None
    if transaction is not None and not _TRANSACTION.match(transaction):
        raise Invalid("transaction is a transaction id (tbx-…)", field="transaction")
    package_id = None
    if values["package"]:
        if not (values["package"].isascii() and values["package"].isdigit()):
            raise Invalid("package must be a package id", field="package")
        package_id = int(values["package"])
        if not 1 <= package_id <= keys.INT32_MAX:
            raise Invalid("package must be a package id", field="package")
    status = PaymentStatus.parse_stored(values["status"]) if values["status"] else None
    date_from = _day(values["from"], "from") if values["from"] else None
    date_to = _day(values["to"], "to") if values["to"] else None
    if date_from and date_to and date_to < date_from:
        raise Invalid("to must not be before from", field="to")
    search = PaymentSearch(player, transaction, package_id, status, date_from, date_to)
    cursor = values["cursor"] or None
    if cursor is not None and not _CURSORS[search.cursor_kind].match(cursor):
        raise Invalid("cursor is not one this search made; start the search again", field="cursor")
    return PaymentSearch(player, transaction, package_id, status, date_from, date_to, cursor)


def _compact(day: date) -> str:
    return day.strftime("%Y%m%d")


def sources_and_filter(
    search: PaymentSearch, account_id: int, username_id: int | None
) -> tuple[list[Source], Filter | None]:
    """The key ranges a search reads and what it filters them on. Pure."""
    conditions: list[str] = []
    names: dict[str, str] = {}
    values: dict[str, object] = {}
    if search.package_id is not None:
        conditions.append("contains(#fpackages, :fpackage)")
        names["#fpackages"] = "package_ids"
        values[":fpackage"] = search.package_id
    id_low, id_high = keys.payment_sk(1), keys.payment_sk(keys.INT32_MAX)
    if username_id is not None:
        if search.status is not None:
            conditions.append("#fstatus = :fstatus")
            names["#fstatus"] = "status"
            values[":fstatus"] = search.status.value
        if search.dated:  # created_at is stored as ISO 8601 in UTC: days compare as prefixes
            conditions.append("#fcreated BETWEEN :ffrom AND :fto")
            names["#fcreated"] = "created_at"
            values[":ffrom"] = search.date_from.isoformat() if search.date_from else "0"
            values[":fto"] = (search.date_to.isoformat() if search.date_to else "9999-12-31") + "~"
        pk = keys.payments_of_player(account_id, username_id)
        sources = [Source(pk, id_low, id_high, index=GSI1)]
    elif search.status is not None or search.dated:
        low = keys.day_start_gsi2sk(_compact(search.date_from)) if search.date_from else "0"
        high = keys.day_end_gsi2sk(_compact(search.date_to)) if search.date_to else "~"
        statuses = [search.status] if search.status else list(PaymentStatus.stored())
        sources = [Source(keys.payments_of_status(account_id, s), low, high, index=GSI2) for s in statuses]
    else:
        sources = [Source(keys.account_pk(account_id), id_low, id_high)]
    where = Filter(" AND ".join(conditions), names, values) if conditions else None
    return sources, where


# --- search ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchResult:
    payments: list[PaymentRecord]
    next_cursor: str | None  # None: nothing older
    notice: str = ""  # why the result is empty, when it is not just "no matches"


def search_payments(services: Services, account_id: int, search: PaymentSearch) -> SearchResult:
    """One page of the search (see the module's docstring for the reads of each way)."""
    if search.transaction is not None:
        payment = PaymentRepository(services.table).get(account_id, keys.payment_id_of(search.transaction))
        if payment is None or payment.transaction_id != search.transaction:
            return SearchResult([], None, f"No payment has the transaction id {search.transaction}")
        return SearchResult([payment], None)
    username_id = None
    if search.player is not None:
        players = PlayerRepository(services.table)
        if is_uuid(search.player):
            username_id = players.id_by_uuid(account_id, normalize_uuid(search.player))
        else:
            username_id = players.id_by_name(account_id, search.player)
        if username_id is None:
            return SearchResult([], None, f"No player {search.player} has bought from this store")
    sources, where = sources_and_filter(search, account_id, username_id)
    page = PaymentSearchRepository(services.table).page(
        sources, limit=PER_PAGE, cursor=search.cursor, where=where, window=SEARCH_WINDOW
    )
    return SearchResult(page.payments, page.cursor)


# --- one payment ------------------------------------------------------------------------------------


QUEUED = "queued"  # waiting in its server's queue
DONE = "done"  # no longer queued: the plugin ran and acknowledged it (or it was deleted)
PLANNED = "planned"  # in the payment's plan, not queued yet (a later chunk still being written)


@dataclass(frozen=True)
class CommandState:
    command: QueuedCommand
    plan: str  # the trigger (purchase, refund, …) or `resend-{id}`
    state: str  # QUEUED, DONE or PLANNED


@dataclass(frozen=True)
class PaymentDetail:
    payment: PaymentRecord
    commands: list[CommandState]
    commands_total: int  # every command of its plans; the first COMMANDS_CHECKED are listed
    server_names: dict[int, str]


def planned_commands(payment: PaymentRecord) -> list[tuple[str, QueuedCommand, bool]]:
    """Every command of the payment's plans in plan order: (plan, command, queued yet). Pure."""
    found = []
    for plan, chunks in payment.plans.items():
        done = payment.chunks_done.get(plan, 0)
        for index, chunk in enumerate(chunks):
            found += [(plan, command, index < done) for command in chunk]
    return found


def payment_detail(services: Services, account_id: int, transaction_id: str) -> PaymentDetail:
    """The payment (GetItem, beside the servers' Query), then which of its commands still wait
    in their queues (one BatchGetItem of their id pointers): 2 round trips."""
    servers_read = start_read(AccountRepository(services.table).servers, account_id)
    payment = PaymentRepository(services.table).by_transaction(account_id, transaction_id)
    planned = planned_commands(payment)
    checked = planned[:COMMANDS_CHECKED]
    waiting = PaymentCommandRepository(services.table).waiting(
        account_id, [command for _, command, queued in checked if queued]
    )
    states = [
        CommandState(command, plan, (QUEUED if command.id in waiting else DONE) if queued else PLANNED)
        for plan, command, queued in checked
    ]
    servers = servers_read.result()
    return PaymentDetail(payment, states, len(planned), {i: s.name for i, s in servers.items()})


# --- actions (the operator interface's use cases) ----------------------------------------------------
# Each writes its audit entry, naming the staff member (`by`) and what changed, in the change's
# own transaction; a request that changes nothing writes nothing.


def _named(payment: PaymentRecord) -> str:
    return f"{payment.transaction_id} ({payment.username}, {payment.amount} {payment.currency})"


def _status_change(by: str, action: str, now: datetime) -> Callable[[PaymentRecord, PaymentRecord], Audit]:
    def audit(before: PaymentRecord, after: PaymentRecord) -> Audit:
        return Audit(
            by, action, f"{_named(after)}: {changed('status', before.status.value, after.status.value)}", now
        )

    return audit


def refund(
    services: Services,
    account_id: int,
    transaction_id: str,
    by: str,
    now: datetime,
    amount: str = "",
    *,
    withdraw: bool = True,
) -> PaymentRecord:
    """Refund `amount` (blank: all that is left): through the processor first when one took the
    money, then recorded with its credit note (payments.refunds); in full, the never-fetched
    purchase commands withdrawn (unless not `withdraw`) and the refund commands queued once
    (payments.changes, as PUT /payments/{txn})."""

    def audit(before: PaymentRecord, after: PaymentRecord) -> Audit:
        if after.status is not before.status:
            return _status_change(by, "payment.refund", now)(before, after)
        given = f"{after.refunded_amount - before.refunded_amount} {after.currency}"
        note = after.refunds[-1].credit_note.credit_label
        what = changed("refunded", str(before.refunded_amount), str(after.refunded_amount))
        return Audit(by, "payment.refund", f"{_named(after)}: {what} ({given}, {note})", now)

    return refunds.refund_payment(
        services, account_id, transaction_id, amount, audit=audit, withdraw=withdraw
    )


def mark_chargeback(
    services: Services, account_id: int, transaction_id: str, by: str, now: datetime, *, withdraw: bool = True
) -> PaymentRecord:
    """Record a chargeback the processor did not report: the never-fetched purchase commands
    withdrawn (unless not `withdraw`), the chargeback commands queued once."""
    return changes.change_payment(
        services,
        account_id,
        transaction_id,
        PaymentStatus.CHARGEBACK.value,
        None,
        withdraw=withdraw,
        audit=_status_change(by, "payment.chargeback", now),
    )


def add_note(
    services: Services, account_id: int, transaction_id: str, note: str, by: str, now: datetime
) -> PaymentRecord:
    """The operator's note use case (POST /payments/{txn}/note); at most 1,000 characters."""
    if len(note) > 1000:
        raise Invalid("note is at most 1000 characters", field="note")
    return changes.add_note(
        services,
        account_id,
        transaction_id,
        note,
        audit=lambda payment: Audit(by, "payment.note", f"{_named(payment)}: note added", now),
    )


def resend(
    services: Services, account_id: int, transaction_id: str, resend_id: str, by: str, now: datetime
) -> bool:
    """Queue the payment's delivery commands again, once per `resend_id` (payments.resend);
    whether this request queued them."""
    _, queued = resend_commands(
        services,
        account_id,
        transaction_id,
        resend_id,
        by,
        now,
        audit=lambda payment, count: Audit(
            by, "payment.resend", f"{_named(payment)}: {count} commands queued again", now
        ),
    )
    return queued
