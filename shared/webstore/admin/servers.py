"""Servers in the panel: list, create, rename, rotate the secret.

A server is a catalog entity (`servers` in the catalog file). The panel writes its items (the
server and its secret's lookup item) by the writes the catalog import's server changes make
(`CatalogEdits.save_server`), in one transaction with the audit entry, and
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

from dataclasses import dataclass
from datetime import datetime

from pydantic import ValidationError

from webstore import keys
from webstore.catalog import Server
from webstore.errors import Invalid, NotFound
from webstore.operator import auth
from webstore.repo.account import AccountRepository
from webstore.repo.audit_log import Audit, changed
from webstore.repo.servers import ServerRepository
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
    created = ServerRepository(services.table).create(
        account_id,
        checked.model_copy(update={"secret_hash": keys.hash_secret(secret)}),
        lambda made: Audit(actor, "server.create", f'server {made.id} "{made.name}"', now),
    )
    return IssuedSecret(created.id, secret)


def rename_server(
    services: Services, account_id: int, server_id: int, name: str, *, actor: str, now: datetime
) -> None:
    """The server's new name; the audit entry says the old and the new (a read, then one
    transaction that fails if the name changed in between)."""
    checked = _checked(server_id, name, 60)
    current = _server(services, account_id, server_id, consistent=True)
    if checked.name == current.name:
        return
    summary = f"server {server_id}: {changed('name', current.name, checked.name)}"
    ServerRepository(services.table).rename(
        account_id, current, checked.name, Audit(actor, "server.rename", summary, now)
    )


def rotate_secret(
    services: Services, account_id: int, server_id: int, *, actor: str, now: datetime
) -> IssuedSecret:
    """A new secret for the server (returned once); the old one is refused from now on (on a warm
    operator instance that verified it: after at most `secret_cache_seconds`)."""
    current = _server(services, account_id, server_id, consistent=True)
    secret = keys.new_secret()
    summary = f'server {server_id} "{current.name}": {changed("secret", None, None, secret=True)}'
    ServerRepository(services.table).rotate_secret(
        account_id, current, keys.hash_secret(secret), Audit(actor, "server.rotate_secret", summary, now)
    )
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


def _server(services: Services, account_id: int, server_id: int, *, consistent: bool = False) -> Server:
    if not 1 <= server_id <= keys.INT32_MAX:
        raise NotFound("Server not found")
    found = AccountRepository(services.table).server(account_id, server_id, consistent=consistent)
    if found is None:
        raise NotFound("Server not found")
    return found


def _view(found: Server) -> ServerView:
    return ServerView(found.id, found.name, found.next_check)
