"""The command queue in the panel: what waits on each server and for each player, deleting
commands, and sending commands again.

- A server's queue: its offline and online commands, in SK order (offline by id, then online by
  player and id), one Query of the queue partition per page, paged by the last SK.
- A player's queue: their waiting commands on every server, one Query of their GSI1 partition
  (`QPLAYER#…`, written with each command by fulfilment; commands queued before that are on the
  server pages only), after the name or UUID pointer read.
- Delete: the operator interface's deleteCommands use case (webstore.operator.queue), as if the
  server's plugin had run them.
- Resend: a delivered command is gone from its queue; its payment keeps it (the payment's plans).
  Resending queues copies of the chosen commands of one payment under new command ids, in one
  transaction with a request marker (`QRESEND#<request id>`, the form's id), so a form posted twice
  queues them once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime, timedelta

from webstore import keys
from webstore.errors import Conflict, Invalid, NotFound
from webstore.operator import queue as operator_queue
from webstore.operator.auth import ServerIdentity
from webstore.operator.players import is_uuid, normalize_uuid
from webstore.repo import Transaction, start_read
from webstore.repo.audit_log import Audit, AuditLog
from webstore.repo.payments import PaymentRepository
from webstore.repo.players import PlayerRepository
from webstore.repo.queue import QueuedCommand, QueuePosition, QueueRepository, enqueue_cost
from webstore.repo.sequences import IdAllocation, SequenceRepository
from webstore.services import Services

COMMANDS_PER_PAGE = 50
# Commands one delete or resend request names (a resend's transaction: the commands, their
# counters, the marker, the audit entry and the sequences in at most 100 actions).
MAX_SELECTED = 30
RESEND_MARKER_DAYS = 30

_SERVER_CURSOR = re.compile(r"^(OFF#[0-9]{10}|ON#[0-9]{10}#[0-9]{10})$")
_PLAYER_CURSOR = re.compile(r"^([0-9]{10})#([0-9]{10})#(on|off)$")
_REQUEST_ID = re.compile(r"^[0-9a-f]{32}$")
_NAME = re.compile(r"^[A-Za-z0-9_.\- ]{1,64}$")


@dataclass(frozen=True)
class CommandPage:
    commands: list[QueuedCommand]
    next_cursor: str | None


class _AlreadyResent(Conflict):
    """The request's marker exists: this request queued its commands already."""


def server_queue(
    services: Services, account_id: int, server_id: int, cursor: str | None = None
) -> CommandPage:
    """A page of the commands waiting on one server (one Query; the server itself is checked by
    the page beside it)."""
    if cursor is not None and not _SERVER_CURSOR.match(cursor):
        raise Invalid("cursor is not a position in this queue", field="cursor")
    found = QueueRepository(services.table).waiting(account_id, server_id, cursor, COMMANDS_PER_PAGE + 1)
    return _page(found, lambda command: command.location)


def find_player(services: Services, account_id: int, player: str) -> int:
    """The player's id from a name or UUID (one GetItem of the pointer); NotFound naming it."""
    wanted = (player or "").strip()
    players = PlayerRepository(services.table)
    if is_uuid(wanted):
        found = players.id_by_uuid(account_id, normalize_uuid(wanted))
    elif _NAME.match(wanted):
        found = players.id_by_name(account_id, wanted)
    else:
        raise Invalid("player must be a player's name or UUID", field="player")
    if found is None:
        raise NotFound("No player of that name or UUID has bought here")
    return found


def player_queue(
    services: Services, account_id: int, username_id: int, cursor: str | None = None
) -> CommandPage:
    """A page of one player's waiting commands on every server (one Query of GSI1)."""
    after = None
    if cursor is not None:
        match = _PLAYER_CURSOR.match(cursor)
        if not match:
            raise Invalid("cursor is not a position in this queue", field="cursor")
        after = QueuePosition(int(match.group(1)), int(match.group(2)), match.group(3) == "on")
    found = QueueRepository(services.table).waiting_for_player(
        account_id, username_id, after, COMMANDS_PER_PAGE + 1
    )
    return _page(
        found,
        lambda c: f"{keys.queued_for_player_gsi1sk(c.server_id, c.id)}#{'on' if c.require_online else 'off'}",
    )


def delete_commands(
    services: Services,
    account_id: int,
    server_id: int,
    command_ids: Iterable[int],
    *,
    actor: str,
    now: datetime,
) -> int:
    """Delete waiting commands of one server (the plugin's delete use case); how many were named."""
    chosen = _selected(command_ids)
    summary = f"commands {', '.join(map(str, chosen))} of server {server_id}: deleted"
    operator_queue.delete_commands(
        services, ServerIdentity(account_id, server_id), chosen, Audit(actor, "queue.delete", summary, now)
    )
    return len(chosen)


def resend_commands(
    services: Services,
    account_id: int,
    transaction_id: str,
    command_ids: Iterable[int],
    request_id: str,
    *,
    actor: str,
    now: datetime,
) -> list[QueuedCommand]:
    """Queue again, under new ids, the chosen commands of a payment (delivered or still
    waiting), once per `request_id`: what this request queued (empty: it was carried out already)."""
    if not _REQUEST_ID.match(request_id or ""):
        raise Invalid("request_id must be the form's 32 hex digits; reload the page", field="request_id")
    chosen = set(_selected(command_ids))
    table = services.table
    sequences = SequenceRepository(table)
    first_read: Future[IdAllocation] = start_read(sequences.read, account_id)
    payment = PaymentRepository(table).by_transaction(account_id, transaction_id)
    sent = [c for c in _sent_commands(payment.plans, payment.chunks_done) if c.id in chosen]
    missing = chosen - {c.id for c in sent}
    if missing:
        raise Invalid(f"command {min(missing)} is not a command this payment has queued", field="command_ids")
    expires_at = int((now + timedelta(days=RESEND_MARKER_DAYS)).timestamp())

    def build(ids: IdAllocation) -> tuple[Transaction, list[QueuedCommand]]:
        new_ids = ids.take("command", len(sent))
        copies = [
            c.model_copy(update={"id": new_id, "created_at": now})
            for c, new_id in zip(sent, new_ids, strict=True)
        ]
        tx = Transaction(table)
        QueueRepository.add_resend_marker(
            tx, account_id, request_id, expires_at, _AlreadyResent("This resend was carried out already")
        )
        QueueRepository.add_enqueue(tx, account_id, copies)
        AuditLog(table).add_to(
            tx,
            account_id,
            actor,
            "queue.resend",
            f"commands {', '.join(str(c.id) for c in sent)} of {transaction_id} as "
            f"{', '.join(str(c.id) for c in copies)}",
            now,
        )
        return tx, copies

    assert enqueue_cost(sent) + 3 <= 100
    try:
        return sequences.write(account_id, build, first_read=first_read)
    except _AlreadyResent:
        return []


def _sent_commands(plans: dict[str, list[list[QueuedCommand]]], done: dict[str, int]) -> list[QueuedCommand]:
    """The commands of a payment's plans that were queued (their chunk is done). Pure."""
    return [
        command
        for plan, chunks in plans.items()
        for chunk in chunks[: done.get(plan, 0)]
        for command in chunk
    ]


def _selected(command_ids: Iterable[int]) -> list[int]:
    chosen = sorted({i for i in command_ids if 1 <= i <= keys.INT32_MAX})
    if not chosen:
        raise Invalid("choose at least one command", field="command_ids")
    if len(chosen) > MAX_SELECTED:
        raise Invalid(f"choose at most {MAX_SELECTED} commands at once", field="command_ids")
    return chosen


def _page(found: list[QueuedCommand], cursor_of: Callable[[QueuedCommand], str]) -> CommandPage:
    shown = found[:COMMANDS_PER_PAGE]
    more = len(found) > COMMANDS_PER_PAGE
    return CommandPage(shown, cursor_of(shown[-1]) if more else None)
