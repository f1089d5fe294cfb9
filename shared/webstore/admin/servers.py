"""Servers in the panel: list, create, rename, rotate the secret.

A server is a catalog entity (`servers` in the catalog file). The panel writes it straight to its
items (the server and its secret's hash, one transaction with the audit entry) and
`webstore export` writes it back to the file, so export → import keeps a server made here and
its secret (a file entry without `secret` keeps the stored hash). Importing an older file that
lacks it removes it, with its secret, as the catalog's rule is that the store equals the file;
a file entry with a fixed `secret` (local development) sets that secret again.

A new server's id is taken from the account's `server` sequence inside the transaction
(repo/sequences.py; the import raises the sequence past the file's ids, and ids an older import
used are skipped). Its secret is returned once and only its SHA-256 is stored.

Rotation replaces the hash and its lookup item in one transaction. The operator interface caches
a verified secret per warm instance for `secret_cache_seconds` (webstore.operator.auth), as it
does after a re-import that rotates: the old secret may work there for at most that long; the
process that rotated forgets it at once.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime

from pydantic import ValidationError

from webstore import keys
from webstore.catalog import Server
from webstore.db import Transaction, start_read, to_item
from webstore.errors import Conflict, Invalid, NotFound
from webstore.operator import auth
from webstore.repo.account import AccountRepository
from webstore.repo.audit_log import AuditLog
from webstore.repo.sequences import IdAllocation, SequenceRepository
from webstore.services import Services


@dataclass(frozen=True)
class ServerView:
    """A server as the panel shows it: never its secret or the hash."""

    id: int
    name: str
    next_check: int


@dataclass(frozen=True)
class IssuedSecret:
    """What create and rotate return: the only time the secret is shown."""

    server_id: int
    secret: str


def servers(services: Services, account_id: int) -> list[ServerView]:
    """The account's servers in id order (one Query)."""
    found = AccountRepository(services.table).servers(account_id)
    return [_view(s) for _, s in sorted(found.items())]


def server(services: Services, account_id: int, server_id: int) -> ServerView:
    return _view(_server(services, account_id, server_id))


def create_server(
    services: Services, account_id: int, name: str, *, actor: str, now: datetime, next_check: int = 60
) -> IssuedSecret:
    """A new server under the next free `server` id, with a new secret (returned once)."""
    checked = _checked(1, name, next_check)
    secret = keys.new_secret()
    secret_hash = keys.hash_secret(secret)
    table = services.table
    sequences = SequenceRepository(table)
    existing: Future[dict[int, Server]] = start_read(AccountRepository(table).servers, account_id)
    first_read = start_read(sequences.read, account_id)
    taken = set(existing.result())

    def build(ids: IdAllocation) -> tuple[Transaction, int]:
        server_id = ids.take("server")[0]
        while server_id in taken:  # an id an import used before it raised the sequence
            server_id = ids.take("server")[0]
        created = checked.model_copy(update={"id": server_id, "secret_hash": secret_hash})
        tx = Transaction(table)
        tx.put(
            to_item(created, keys.account_pk(account_id), keys.server_sk(server_id), "server"),
            condition="attribute_not_exists(PK)",
            fails=Conflict("The server list changed meanwhile; try again"),
        )
        tx.put(
            {
                **keys.secret_key(secret_hash),
                "entity": "secret",
                "account_id": account_id,
                "server_id": server_id,
            },
            condition="attribute_not_exists(PK)",
        )
        AuditLog(table).add_to(
            tx, account_id, actor, "server.create", f'server {server_id} "{created.name}"', now
        )
        return tx, server_id

    server_id = sequences.write(account_id, build, first_read=first_read)
    return IssuedSecret(server_id, secret)


def rename_server(
    services: Services, account_id: int, server_id: int, name: str, *, actor: str, now: datetime
) -> None:
    checked = _checked(server_id, name, 60)
    tx = Transaction(services.table)
    tx.update(
        _key(account_id, server_id),
        "SET #name = :name",
        condition="attribute_exists(PK)",
        names={"#name": "name"},
        values={":name": checked.name},
        fails=NotFound("Server not found"),
    )
    AuditLog(services.table).add_to(
        tx, account_id, actor, "server.rename", f'server {server_id} "{checked.name}"', now
    )
    tx.commit()


def rotate_secret(
    services: Services, account_id: int, server_id: int, *, actor: str, now: datetime
) -> IssuedSecret:
    """A new secret for the server (returned once); the old one is refused from now on (on a warm
    operator instance that verified it: after at most `secret_cache_seconds`)."""
    current = _server(services, account_id, server_id, consistent=True)
    secret = keys.new_secret()
    new_hash = keys.hash_secret(secret)
    tx = Transaction(services.table)
    tx.update(
        _key(account_id, server_id),
        "SET secret_hash = :new",
        condition="secret_hash = :old",
        values={":new": new_hash, ":old": current.secret_hash},
        fails=Conflict("The server's secret changed meanwhile; nothing was changed, try again"),
    )
    if current.secret_hash:
        tx.delete(keys.secret_key(current.secret_hash))
    tx.put(
        {**keys.secret_key(new_hash), "entity": "secret", "account_id": account_id, "server_id": server_id},
        condition="attribute_not_exists(PK)",
    )
    AuditLog(services.table).add_to(
        tx, account_id, actor, "server.rotate_secret", f'server {server_id} "{current.name}"', now
    )
    tx.commit()
    if current.secret_hash:
        auth.cache.forget(services.table.name, current.secret_hash)
    return IssuedSecret(server_id, secret)


def _checked(server_id: int, name: str, next_check: int) -> Server:
    """The server as the catalog file's rules have it (name 1 to 200 characters, next_check 1 to 3600)."""
    try:
        return Server(id=server_id, name=(name or "").strip(), next_check=next_check)
    except ValidationError as error:
        problem = error.errors()[0]
        field = str(problem["loc"][0]) if problem["loc"] else "name"
        raise Invalid(f"{field}: {problem['msg']}", field=field) from None


def _key(account_id: int, server_id: int) -> dict[str, str]:
    if not 1 <= server_id <= keys.INT32_MAX:
        raise NotFound("Server not found")
    return keys.key(keys.account_pk(account_id), keys.server_sk(server_id))


def _server(services: Services, account_id: int, server_id: int, *, consistent: bool = False) -> Server:
    _key(account_id, server_id)  # NotFound for an id out of range
    found = AccountRepository(services.table).server(account_id, server_id, consistent=consistent)
    if found is None:
        raise NotFound("Server not found")
    return found


def _view(found: Server) -> ServerView:
    return ServerView(found.id, found.name, found.next_check)
