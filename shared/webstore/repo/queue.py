"""One server's command queue: one partition per (account, server). See docs/operator.md.

SKs: `STATE` (cycle cursor, next_check_at, offline_pending), `DUE#{player}` (a player with
`pending` online commands), `OFF#{command}` (offline commands), `ON#{player}#{command}` (online
commands grouped by player), `CMD#{command}` (id -> where the command lives). Each command is
also in its player's GSI1 partition (`QPLAYER#…`: the panel's queue by player, every server).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from webstore import keys
from webstore.db import (
    GSI1,
    ConditionFailed,
    Contention,
    Table,
    Transaction,
    TransactionCancelled,
    from_item,
    start_read,
    to_item,
)
from webstore.errors import Conflict
from webstore.model import Model
from webstore.repo.audit_log import Audit
from webstore.servers import Server


class QueuedCommand(Model):
    """A command waiting on one server; the record plugins fetch (placeholders left in)."""

    id: int
    server_id: int
    command: str
    payment_id: int | None = None
    package_id: int | None = None
    trigger: str = "purchase"
    require_online: bool = False
    delay: int = 0
    slots: int = 0
    username_id: int
    username: str
    uuid: str | None = None
    created_at: datetime

    @property
    def location(self) -> str:
        if self.require_online:
            return keys.online_command_sk(self.username_id, self.id)
        return keys.offline_command_sk(self.id)

    @property
    def counter_sk(self) -> str:
        """The item whose count of waiting commands this command adds to."""
        return keys.due_sk(self.username_id) if self.require_online else keys.QUEUE_STATE


@dataclass(frozen=True)
class QueueState:
    """A server queue's polling state: the current cycle's cursor and when the next may start,
    and how many offline commands wait."""

    next_check_at: int = 0
    cycle_cursor: str | None = None
    offline_pending: int = 0


@dataclass(frozen=True)
class QueuePosition:
    """Where a player's queue page continues: after this command."""

    server_id: int
    command_id: int
    online: bool


@dataclass(frozen=True)
class DueEntry:
    """A player with online commands waiting (`pending` of them; 0: the entry is idle)."""

    sk: str
    username_id: int
    username: str
    uuid: str | None
    pending: int


@dataclass(frozen=True)
class CommandPointer:
    """Where a command lives in its queue, and which item counts it."""

    command_id: int
    location: str
    counter: str


def enqueue_cost(commands: Sequence[QueuedCommand]) -> int:
    """Transaction actions `add_enqueue` adds: two per command + one per counter item."""
    return 2 * len(commands) + len({(c.server_id, c.counter_sk) for c in commands})


class QueueRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    # --- writes of fulfilment -------------------------------------------------------------

    @staticmethod
    def add_enqueue(
        tx: Transaction,
        account_id: int,
        commands: Sequence[QueuedCommand],
        withdrawn: Sequence[QueuedCommand] = (),
    ) -> None:
        """Queue `commands` in `tx` (`enqueue_cost(commands)` actions): put each command and its
        id pointer (both must be new: an id that exists is contention) and count it on its
        player's due item (online) or on the queue state (offline). `withdrawn` (a refund's):
        commands taken out in the same transaction (`enqueue_cost` more actions), each on
        condition it is still there and never fetched (a plugin that fetched it meanwhile makes
        the transaction contention: read again); one update per counter nets both."""
        counts: dict[tuple[int, str], int] = {}
        players: dict[tuple[int, str], QueuedCommand] = {}
        for command in commands:
            pk = keys.queue_pk(account_id, command.server_id)
            item = to_item(
                command,
                pk,
                command.location,
                "command",
                GSI1PK=keys.queued_for_player_gsi1pk(account_id, command.username_id),
                GSI1SK=keys.queued_for_player_gsi1sk(command.server_id, command.id),
            )
            tx.put(item, condition="attribute_not_exists(PK)")
            pointer = {
                "PK": pk,
                "SK": keys.command_pointer_sk(command.id),
                "entity": "command_pointer",
                "location": command.location,
                "counter": command.counter_sk,
            }
            tx.put(pointer, condition="attribute_not_exists(PK)")
            counter = (command.server_id, command.counter_sk)
            counts[counter] = counts.get(counter, 0) + 1
            players.setdefault(counter, command)
        for command in withdrawn:
            pk = keys.queue_pk(account_id, command.server_id)
            tx.delete(
                keys.key(pk, command.location),
                condition="attribute_exists(PK) AND attribute_not_exists(fetched_at)",
            )
            tx.delete(keys.key(pk, keys.command_pointer_sk(command.id)), condition="attribute_exists(PK)")
            counter = (command.server_id, command.counter_sk)
            counts[counter] = counts.get(counter, 0) - 1
        for (server_id, counter_sk), count in counts.items():
            key = keys.key(keys.queue_pk(account_id, server_id), counter_sk)
            player = players.get((server_id, counter_sk))
            if counter_sk == keys.QUEUE_STATE:
                tx.update(
                    key,
                    "ADD offline_pending :n SET entity = :e",
                    values={":n": count, ":e": "queue_state"},
                )
            elif player is None:  # only withdrawn: the player's due item exists
                tx.update(key, "ADD pending :n", values={":n": count})
            else:
                tx.update(
                    key,
                    "ADD pending :n SET entity = :e, username_id = :id, username = :name, #uuid = :uuid",
                    names={"#uuid": "uuid"},
                    values={
                        ":n": count,
                        ":e": "due_player",
                        ":id": player.username_id,
                        ":name": player.username,
                        ":uuid": player.uuid,
                    },
                )

    # --- reads of the plugin --------------------------------------------------------------

    def state_and_server(self, account_id: int, server_id: int) -> tuple[QueueState, Server | None]:
        """The queue state and the server's settings: one (consistent) BatchGetItem."""
        state_key = keys.key(keys.queue_pk(account_id, server_id), keys.QUEUE_STATE)
        server_key = keys.key(keys.account_pk(account_id), keys.server_sk(server_id))
        found = {i["SK"]: i for i in self.table.batch_get([state_key, server_key], consistent=True)}
        server = found.get(server_key["SK"])
        item = found.get(keys.QUEUE_STATE, {})
        state = QueueState(
            next_check_at=int(item.get("next_check_at", 0)),
            cycle_cursor=item.get("cycle_cursor"),
            offline_pending=int(item.get("offline_pending", 0)),
        )
        return state, (from_item(Server, server) if server else None)

    def due_players(self, account_id: int, server_id: int, after: str | None, limit: int) -> list[DueEntry]:
        """Up to `limit` due players, in id order, after the SK `after` (one Query)."""
        items, _ = self.table.query(
            keys.queue_pk(account_id, server_id),
            sk_between=keys.due_range(after),
            limit=limit,
            consistent=True,
        )
        return [
            DueEntry(
                sk=i["SK"],
                username_id=int(i["username_id"]),
                username=i["username"],
                uuid=i.get("uuid"),
                pending=int(i.get("pending", 0)),
            )
            for i in items
        ]

    def drop_if_idle(self, account_id: int, server_id: int, sk: str) -> None:
        """Delete a due item whose commands are all gone (never one that got a new command)."""
        with contextlib.suppress(ConditionFailed):
            self.table.delete(
                keys.key(keys.queue_pk(account_id, server_id), sk),
                condition="pending <= :zero",
                values={":zero": 0},
            )

    def fetch(
        self, account_id: int, server_id: int, prefix: str, limit: int, now: int
    ) -> tuple[list[QueuedCommand], bool]:
        """The first `limit` commands a plugin is handed (one Query) and whether more wait, each
        marked fetched (`fetched_at`) before it is handed out: one conditional UpdateItem per
        command not marked yet (in parallel), so a command is marked once in its life. A command
        withdrawn between the Query and its mark (a refund: `add_enqueue(..., withdrawn=)`) is left out, so a
        plugin never receives a withdrawn command."""
        pk = keys.queue_pk(account_id, server_id)
        items, _ = self.table.query(pk, sk_prefix=prefix, limit=limit + 1, consistent=True)
        handed = items[:limit]
        marks = {
            i["SK"]: start_read(self._mark_fetched, keys.key(pk, i["SK"]), now)
            for i in handed
            if "fetched_at" not in i
        }
        kept = [i for i in handed if i["SK"] not in marks or marks[i["SK"]].result()]
        return [from_item(QueuedCommand, i) for i in kept], len(items) > limit

    def _mark_fetched(self, key: dict[str, str], now: int) -> bool:
        try:
            self.table.update(
                key, "SET fetched_at = :now", condition="attribute_exists(PK)", values={":now": now}
            )
        except ConditionFailed:
            return False
        return True

    def start_cycle(
        self, account_id: int, server_id: int, now: int, next_check_at: int, cursor: str | None
    ) -> bool:
        """Open a polling cycle if no other call did since `next_check_at` passed (False: one did)."""
        expression = "SET next_check_at = :next, entity = :e"
        values: dict[str, Any] = {":next": next_check_at, ":now": now, ":e": "queue_state"}
        if cursor:
            expression += ", cycle_cursor = :cursor"
            values[":cursor"] = cursor
        else:
            expression += " REMOVE cycle_cursor"
        return self._update_state(
            account_id,
            server_id,
            expression,
            "attribute_not_exists(next_check_at) OR next_check_at <= :now",
            values,
        )

    def advance_cycle(self, account_id: int, server_id: int, previous: str, cursor: str | None) -> bool:
        """Move the cycle's cursor on from `previous` (False: another call moved it first)."""
        values: dict[str, Any] = {":previous": previous}
        if cursor:
            expression = "SET cycle_cursor = :cursor"
            values[":cursor"] = cursor
        else:
            expression = "REMOVE cycle_cursor"
        return self._update_state(account_id, server_id, expression, "cycle_cursor = :previous", values)

    def _update_state(
        self, account_id: int, server_id: int, expression: str, condition: str, values: dict[str, Any]
    ) -> bool:
        try:
            self.table.update(
                keys.key(keys.queue_pk(account_id, server_id), keys.QUEUE_STATE),
                expression,
                condition=condition,
                values=values,
            )
        except ConditionFailed:
            return False

        return True

    # --- a refund's withdrawal ------------------------------------------------------------

    def undelivered(self, account_id: int, commands: Sequence[QueuedCommand]) -> list[QueuedCommand]:
        """Those of `commands` still in their queues and never handed to a plugin (no
        `fetched_at`): one consistent BatchGetItem per 100. A command fetched but not yet deleted
        may have run, so it is not among them. `add_enqueue(..., withdrawn=)` takes them out."""
        if not commands:
            return []
        found = self.table.batch_get(
            [keys.key(keys.queue_pk(account_id, c.server_id), c.location) for c in commands],
            consistent=True,
        )
        waiting = {(i["PK"], i["SK"]) for i in found if "fetched_at" not in i}
        return [c for c in commands if (keys.queue_pk(account_id, c.server_id), c.location) in waiting]

    # --- the panel's lists ------------------------------------------------------------------

    def waiting(
        self, account_id: int, server_id: int, after_sk: str | None, limit: int
    ) -> list[QueuedCommand]:
        """Commands waiting on one server in SK order (offline, then online by player), after
        the SK `after_sk` (a command's `location`): one Query."""
        pk = keys.queue_pk(account_id, server_id)
        items, _ = self.table.query(
            pk,
            sk_between=(keys.OFFLINE_PREFIX, keys.ONLINE_PREFIX + "~"),
            limit=limit,
            start_key=keys.key(pk, after_sk) if after_sk else None,
        )
        return [from_item(QueuedCommand, i) for i in items]

    def waiting_for_player(
        self, account_id: int, username_id: int, after: QueuePosition | None, limit: int
    ) -> list[QueuedCommand]:
        """One player's waiting commands on every server (GSI1, by server and id), after the
        command at `after`: one Query."""
        gsi1pk = keys.queued_for_player_gsi1pk(account_id, username_id)
        start = None
        if after is not None:
            sk = (
                keys.online_command_sk(username_id, after.command_id)
                if after.online
                else keys.offline_command_sk(after.command_id)
            )
            start = {
                "PK": keys.queue_pk(account_id, after.server_id),
                "SK": sk,
                "GSI1PK": gsi1pk,
                "GSI1SK": keys.queued_for_player_gsi1sk(after.server_id, after.command_id),
            }
        items, _ = self.table.query(gsi1pk, index=GSI1, limit=limit, start_key=start)
        return [from_item(QueuedCommand, i) for i in items]

    @staticmethod
    def add_resend_marker(
        tx: Transaction, account_id: int, request_id: str, expires_at: int, fails: Conflict
    ) -> None:
        """The marker of one resend request (`QRESEND#<request id>`), new or `fails`: a request
        posted twice queues its commands once."""
        tx.put(
            {
                **keys.key(keys.account_pk(account_id), keys.queue_resend_sk(request_id)),
                "entity": "queue_resend",
                "expires_at": expires_at,
            },
            condition="attribute_not_exists(PK)",
            fails=fails,
        )

    # --- deletes by id --------------------------------------------------------------------

    def pointers(self, account_id: int, server_id: int, command_ids: Sequence[int]) -> list[CommandPointer]:
        """The id pointers that exist in this server's queue (consistent BatchGetItem)."""
        pk = keys.queue_pk(account_id, server_id)
        found = self.table.batch_get(
            [keys.key(pk, keys.command_pointer_sk(i)) for i in command_ids], consistent=True
        )
        return [CommandPointer(keys.id_of(i["SK"]), i["location"], i["counter"]) for i in found]

    def delete_found(
        self,
        account_id: int,
        server_id: int,
        pointers: Sequence[CommandPointer],
        audit: Audit | None = None,
    ) -> bool:
        """Delete the commands the pointers name, in transactions of at most 100 actions (the
        last also holding `audit`, the panel's entry). A pointer delete is conditional on the
        pointer existing, so a command is deleted and uncounted once even when deletes overlap.
        False when a chunk lost that race (the caller re-reads and retries what is left; the
        entry was not written)."""
        pk = keys.queue_pk(account_id, server_id)
        chunks = _chunks(sorted(pointers, key=lambda p: p.command_id), room=99 if audit else 100)
        for index, chunk in enumerate(chunks):
            tx = Transaction(self.table)
            if audit is not None and index == len(chunks) - 1:
                audit.add_to(tx, account_id)
            counts: dict[str, int] = {}
            for pointer in chunk:
                tx.delete(
                    keys.key(pk, keys.command_pointer_sk(pointer.command_id)),
                    condition="attribute_exists(PK)",
                )
                tx.delete(keys.key(pk, pointer.location))
                counts[pointer.counter] = counts.get(pointer.counter, 0) + 1
            for counter_sk, count in counts.items():
                attribute = "offline_pending" if counter_sk == keys.QUEUE_STATE else "pending"
                tx.update(keys.key(pk, counter_sk), f"ADD {attribute} :minus", values={":minus": -count})
            try:
                tx.commit()
            except Contention:
                return False
        return True


def _chunks(pointers: list[CommandPointer], room: int = 100) -> list[list[CommandPointer]]:
    """Split so each transaction holds at most `room` actions (2 per command + 1 per counter)."""
    chunks: list[list[CommandPointer]] = []
    current: list[CommandPointer] = []
    counters: set[str] = set()
    for pointer in pointers:
        new_counters = counters | {pointer.counter}
        if current and 2 * (len(current) + 1) + len(new_counters) > room:
            chunks.append(current)
            current, new_counters = [], {pointer.counter}
        current.append(pointer)
        counters = new_counters
    if current:
        chunks.append(current)
    return chunks


__all__ = ["QueueRepository", "QueuedCommand", "TransactionCancelled", "enqueue_cost"]
