"""The store's catalog revision (`ACCOUNT#a`/`CATALOGREV`): every change to a catalog entity
moves it on in the change's own transaction. A writer that read the catalog at revision r (a
panel form, an exported file) claims r → r+1 on condition it still holds r, so a change made
since refuses it ("changed by someone else"); a writer with nothing read by a client (the
operator interface, a forced import) claims whatever revision it read itself the same way and
reads again when it lost. So no writer overwrites another's change unseen."""

from __future__ import annotations

from webstore import keys
from webstore.db import Transaction
from webstore.errors import Conflict

CATALOG_REVISION = "CATALOGREV"


def stale_revision() -> Conflict:
    return Conflict(
        "The catalog was changed by someone else since this page was loaded: reload it and "
        "make your change again",
        field="revision",
    )


def revision_key(account_id: int) -> dict[str, str]:
    return keys.key(keys.account_pk(account_id), CATALOG_REVISION)


def claim_in(tx: Transaction, account_id: int, seen: int, fails: Conflict | None = None) -> int:
    """Add to `tx` the move from `seen` to `seen + 1`, on condition the catalog is still at `seen`
    (else `fails`, default: the stale-form Conflict). Returns the new revision."""
    tx.update(
        revision_key(account_id),
        "SET revision = :next, entity = :entity",
        condition="(attribute_not_exists(revision) AND :seen = :zero) OR revision = :seen",
        values={":next": seen + 1, ":seen": seen, ":zero": 0, ":entity": "catalog_revision"},
        fails=fails or stale_revision(),
    )
    return seen + 1


def bump_in(tx: Transaction, account_id: int) -> None:
    """Add to `tx` one more revision, whatever it is (a change that needs no read of the catalog,
    e.g. a new coupon from the operator interface: forms read before it are stale)."""
    tx.update(
        revision_key(account_id),
        "ADD revision :one SET entity = :entity",
        values={":one": 1, ":entity": "catalog_revision"},
    )
