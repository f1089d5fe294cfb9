"""Which of a payment's commands still wait in their servers' queues: a command's id pointer
(`QUEUE#a#s`/`CMD#{id}`, repo.queue) exists from when it is queued until the plugin deletes it
after running it (DELETE /queue), or someone deletes it."""

from __future__ import annotations

from collections.abc import Sequence

from webstore import keys
from webstore.db import Table
from webstore.repo.queue import QueuedCommand


class PaymentCommandRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    def waiting(self, account_id: int, commands: Sequence[QueuedCommand]) -> set[int]:
        """The ids of `commands` still queued: one BatchGetItem (per 100 commands) of their
        pointers."""
        if not commands:
            return set()
        found = self.table.batch_get(
            [
                keys.key(keys.queue_pk(account_id, c.server_id), keys.command_pointer_sk(c.id))
                for c in commands
            ]
        )
        return {keys.id_of(item["SK"]) for item in found}
