"""A store's game servers as the panel changes them one at a time: create, rename, rotate the
secret. Each write is one transaction holding the server, its secret's lookup item
(`SECRET#{hash}` → the server) and the audit entry, so the entry exists exactly when the change
does. The server's items and their conditions are written by `CatalogEdits.save_server`, the
writes the catalog import's server changes make too, so a server reads the same whichever way
it was made."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future

from webstore import keys
from webstore.db import Table, Transaction, start_read
from webstore.errors import Conflict, NotFound
from webstore.repo.account import AccountRepository
from webstore.repo.audit_log import Audit
from webstore.repo.catalog_edits import CatalogEdits
from webstore.repo.catalog_revision import bump_in
from webstore.repo.sequences import IdAllocation, SequenceRepository
from webstore.servers import Server


class ServerRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    def create(self, account_id: int, server: Server, audit: Callable[[Server], Audit]) -> Server:
        """Store `server` (with its `secret_hash`) under the next free `server` id, its secret's
        lookup item and `audit(created)`: the servers and the sequences read at once, then one
        transaction (again on contention). An id a server already has (one an import wrote
        without raising the sequence) is skipped."""
        sequences = SequenceRepository(self.table)
        existing: Future[dict[int, Server]] = start_read(AccountRepository(self.table).servers, account_id)
        first_read = start_read(sequences.read, account_id)
        taken = set(existing.result())

        def build(ids: IdAllocation) -> tuple[Transaction, Server]:
            server_id = ids.take("server", above=max(taken, default=0))[0]
            created = server.model_copy(update={"id": server_id})
            tx = Transaction(self.table)
            CatalogEdits(self.table).save_server(
                tx, account_id, created, None, Conflict("The server list changed meanwhile; try again")
            )
            audit(created).add_to(tx, account_id)
            bump_in(tx, account_id)  # a catalog entity: forms and exports read before are stale
            return tx, created

        return sequences.write(account_id, build, first_read=first_read)

    def rename(self, account_id: int, current: Server, name: str, audit: Audit) -> None:
        """Set the server's name on condition that it is still `current.name` (one transaction
        with the audit entry): Conflict when it changed meanwhile, NotFound when it is gone."""
        self._key(account_id, current.id)  # an id out of range: NotFound
        tx = Transaction(self.table)
        CatalogEdits(self.table).save_server(
            tx,
            account_id,
            current.model_copy(update={"name": name}),
            current,
            Conflict("The server changed meanwhile; reload and try again"),
        )
        audit.add_to(tx, account_id)
        bump_in(tx, account_id)
        tx.commit()

    def rotate_secret(self, account_id: int, current: Server, new_hash: str, audit: Audit) -> None:
        """Replace the secret's hash and its lookup item on condition that the hash is still
        `current.secret_hash` (one transaction with the audit entry and the catalog revision
        moved on)."""
        self._key(account_id, current.id)  # an id out of range: NotFound
        tx = Transaction(self.table)
        CatalogEdits(self.table).save_server(
            tx,
            account_id,
            current.model_copy(update={"secret_hash": new_hash}),
            current,
            Conflict("The server's secret changed meanwhile; nothing was changed, try again"),
        )
        audit.add_to(tx, account_id)
        bump_in(tx, account_id)  # an export read before would bring the old secret back
        tx.commit()

    @staticmethod
    def _key(account_id: int, server_id: int) -> dict[str, str]:
        if not 1 <= server_id <= keys.INT32_MAX:
            raise NotFound("Server not found")
        return keys.key(keys.account_pk(account_id), keys.server_sk(server_id))
