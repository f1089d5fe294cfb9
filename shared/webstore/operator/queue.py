"""The command queue as plugins use it: due players (throttled cycles), commands, deletes.

Handing a command to a plugin marks it fetched (`fetched_at`, repo.queue): from then on it may
have run, so a refund no longer withdraws it (webstore.payments.changes, docs/operator.md).

A polling cycle starts with a conditional write on the queue state (`next_check_at <= now`),
so every Lambda instance enforces the same `next_check`; follow-up calls of the same cycle
(`more` was true) continue from the stored cursor without the throttle. See docs/operator.md.
"""

from __future__ import annotations

from collections.abc import Iterable

from webstore import contention, keys
from webstore.errors import Conflict, Forbidden, Throttled
from webstore.operator import queue_schemas, queue_views
from webstore.operator.auth import ServerIdentity
from webstore.repo.audit_log import Audit
from webstore.repo.queue import QueueRepository
from webstore.services import Services

# Due players per GET /queue response (module attribute so tests can make it small).
DUE_PAGE_SIZE = 100
# Commands per offline/online fetch; `meta.limited` tells the plugin more are waiting.
COMMAND_PAGE_SIZE = 250
DELETE_ATTEMPTS = 5


def next_check_seconds(services: Services, server_next_check: int) -> int:
    override = services.settings.next_check_override
    return override if override is not None else server_next_check


def due_players(services: Services, who: ServerIdentity) -> queue_schemas.DuePlayers:
    repo = QueueRepository(services.table)
    a, s = who.account_id, who.server_id
    now = int(services.now().timestamp())
    state, server = repo.state_and_server(a, s)
    if server is None:
        raise Forbidden("This server no longer exists")
    next_check = next_check_seconds(services, server.next_check)
    next_check_at = state.next_check_at
    cursor = state.cycle_cursor
    # Inside a cycle (a cursor, not yet stale) calls continue; otherwise a new cycle starts,
    # which the throttle guards. A cycle older than next_check starts over.
    continuing = cursor is not None and now < next_check_at
    if not continuing and now < next_check_at:
        raise Throttled(
            f"The queue may be checked every {next_check} seconds", retry_after=next_check_at - now
        )

    page_size = DUE_PAGE_SIZE
    items = repo.due_players(a, s, cursor if continuing else None, page_size + 1)
    more = len(items) > page_size
    page = items[:page_size]
    new_cursor = page[-1].sk if more else None
    if continuing:
        assert cursor is not None
        if not repo.advance_cycle(a, s, cursor, new_cursor):
            raise Throttled("Another check of this queue is in progress", retry_after=1)
    elif not repo.start_cycle(a, s, now, now + next_check, new_cursor):
        raise Throttled(f"The queue may be checked every {next_check} seconds", retry_after=next_check)

    players = []
    for entry in page:
        if entry.pending > 0:
            players.append(
                queue_schemas.DuePlayer(
                    id=entry.username_id, name=entry.username, uuid=queue_views.queue_player_id(entry.uuid)
                )
            )
        else:
            repo.drop_if_idle(a, s, entry.sk)
    return queue_schemas.DuePlayers(
        meta=queue_schemas.QueueMeta(
            execute_offline=state.offline_pending > 0, next_check=next_check, more=more
        ),
        players=players,
    )


def offline_commands(services: Services, who: ServerIdentity) -> queue_schemas.OfflineCommands:
    found, more = QueueRepository(services.table).fetch(
        who.account_id, who.server_id, keys.OFFLINE_PREFIX, COMMAND_PAGE_SIZE, _now(services)
    )
    return queue_schemas.OfflineCommands(
        meta=queue_schemas.OfflineMeta(limited=more),
        commands=[queue_views.command_view(c) for c in found],
    )


def online_commands(services: Services, who: ServerIdentity, player_id: int) -> queue_schemas.OnlineCommands:
    found, _ = QueueRepository(services.table).fetch(
        who.account_id,
        who.server_id,
        keys.online_commands_prefix(player_id),
        COMMAND_PAGE_SIZE,
        _now(services),
    )
    return queue_schemas.OnlineCommands(
        player=queue_schemas.OnlinePlayer(id=player_id, username=found[0].username if found else None),
        commands=[queue_views.command_view(c) for c in found],
    )


def _now(services: Services) -> int:
    return int(services.now().timestamp())


def delete_commands(
    services: Services, who: ServerIdentity, command_ids: Iterable[int], audit: Audit | None = None
) -> None:
    """Delete this server's commands among `command_ids`; unknown ids (already deleted, another
    server's or account's) are ignored. Overlapping deletes each remove a command at most once.
    `audit` (the panel's entry) is written with the deletes, when there is any to make."""
    repo = QueueRepository(services.table)
    left = sorted({i for i in command_ids if 1 <= i <= keys.INT32_MAX})
    for _ in contention.attempts(DELETE_ATTEMPTS):
        if not left:
            return
        pointers = repo.pointers(who.account_id, who.server_id, left)
        if not pointers:
            return
        if repo.delete_found(who.account_id, who.server_id, pointers, audit):
            return
        # Another delete took some of these first; what it took is gone, retry the rest.
        left = sorted(p.command_id for p in pointers)
    raise Conflict("The commands are being deleted by another request; try again")
