"""One catalog entity's change: the one way the catalog's definitions are written.

A change is planned first, as a value (`EntityChange`: which entity, created, changed or taken
out, its definition before and after), and the plan checked against the rules a change must
keep whoever makes it (`check_change`). Then `write_change` adds its writes to a transaction:
the same items, the same conditions (a new entity's id and a coupon's code must be free, a
changed one must exist; a server's secret lookup item put and the one it replaces deleted; a
webhook endpoint's signing secret sealed), the same runtime state left alone (a goal's progress, a gift card's
balance, a coupon's redemptions, an entity's creation time).

The panel's and the operator interface's edits (`webstore.catalog_edit`) write one plan in the
transaction that claims the catalog revision and adds the audit entry; `webstore import` plans
every entity the file changes and writes the plans in a few transactions (`write_changes`), the
first claiming the revision it read. So a record reads the same whichever way it was made.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from webstore.catalog import Coupon, GiftCard, Store
from webstore.errors import Conflict, Invalid, NotFound
from webstore.repo.catalog_edits import CatalogEdits, Transaction
from webstore.repo.sequences import IdAllocation
from webstore.secret_box import SecretBox
from webstore.servers import Server

# Kinds written as store partition entities (the rest: coupons, gift cards, the store item).
ENTITY_KINDS = ("category", "package", "page", "goal")
VERBS = ("create", "update", "delete")
# A transaction holds at most 100 actions and 4 MB: an import's batch stays well inside both.
BATCH_ACTIONS = 60
BATCH_BYTES = 2 * 1024 * 1024
# A server replaced on condition that it is still as read.
SERVER_CHANGED = Conflict("The server changed meanwhile; reload and try again")


@dataclass(frozen=True)
class EntityChange:
    """One entity created, updated or taken out (`delete`: packages and goals are disabled, the
    rest removed). `entity`: the definition as it will be (None for delete); `old`: as stored
    (None when new; a coupon's old code, the store item's fields and a server's old secret are
    written from it; a replaced server must still be as `old`). A webhook endpoint's `entity`
    holds its signing secret open: `write_change` seals it."""

    kind: str  # category, package, page, goal, coupon, gift_card, store, server, webhook
    element_id: int | None
    verb: str
    entity: Any = None
    old: Any = None
    # What a failed condition says (servers, webhook endpoints: the panel's own messages).
    fails: Conflict | NotFound | None = None

    def __post_init__(self) -> None:
        if self.verb not in VERBS:
            raise ValueError(f"unknown verb {self.verb!r}")


def check_change(change: EntityChange) -> None:
    """The rules of a change of one entity (beyond the catalog file's own, which `check_catalog`
    checks for the whole catalog): the same message whoever makes it."""
    old, new = change.old, change.entity
    if isinstance(old, GiftCard) and isinstance(new, GiftCard) and old.card_number != new.card_number:
        raise Invalid(
            "card_number: a card keeps its number (void it and add a new card)", field="card_number"
        )


def write_change(
    edits: CatalogEdits,
    tx: Transaction,
    account_id: int,
    change: EntityChange,
    ids: IdAllocation,
    box: SecretBox | None = None,
) -> None:
    """Add one planned change's writes to `tx` (coupon counts move on `ids`; a webhook
    endpoint's signing secret is sealed with `box`)."""
    check_change(change)
    kind, verb = change.kind, change.verb
    if kind in ENTITY_KINDS:
        assert change.element_id is not None
        if verb == "delete":
            edits.remove_entity(tx, account_id, kind, change.element_id)
        else:
            edits.save_entity(tx, account_id, kind, change.entity, new=verb == "create")
    elif kind == "coupon":
        if verb == "delete":
            assert isinstance(change.old, Coupon)
            edits.remove_coupon(tx, account_id, change.old, ids)
        else:
            edits.save_coupon(tx, account_id, change.entity, change.old, ids)
    elif kind == "gift_card":
        if verb == "delete":
            raise Invalid(
                "a gift card is not deleted (players own its balance): void it instead", field="void"
            )
        edits.save_gift_card(tx, account_id, change.entity, new=verb == "create")
    elif kind == "server":
        if verb == "delete":
            assert isinstance(change.old, Server)
            edits.remove_server(tx, account_id, change.old)
        else:
            assert isinstance(change.entity, Server)
            edits.save_server(tx, account_id, change.entity, change.old, change.fails or SERVER_CHANGED)
    elif kind == "webhook":
        assert change.element_id is not None
        if verb == "delete":
            edits.remove_webhook(tx, account_id, change.element_id)
        else:
            if box is None:
                raise ValueError("a webhook endpoint's change needs the box sealing its secret")
            edits.save_webhook(tx, account_id, change.entity, box, new=verb == "create", fails=change.fails)
    elif kind == "store":
        assert isinstance(change.entity, Store)
        if change.old is None:
            edits.create_store(tx, change.entity)
        else:
            edits.save_store(tx, change.entity, change.old)
    else:
        raise ValueError(f"no catalog entity kind {kind!r}")


def write_changes(
    edits: CatalogEdits,
    account_id: int,
    changes: Sequence[EntityChange],
    *,
    claim: int | None,
    box: SecretBox | None = None,
) -> int:
    """Write many planned changes (an import) in as few transactions as the limits allow; the
    first also claims the revision `claim` (the one read before planning: a writer since →
    Conflict, nothing written). Every plan is checked before the first write. Returns the number
    of transactions."""
    for change in changes:
        check_change(change)
    batches = 0
    tx = edits.transaction()
    ids = IdAllocation.unread(account_id)
    if claim is not None:
        edits.claim(tx, account_id, claim)
    for change in changes:
        write_change(edits, tx, account_id, change, ids, box)
        count, size = edits.size(tx)
        if count >= BATCH_ACTIONS or size >= BATCH_BYTES:
            edits.commit(tx, ids)
            batches += 1
            tx, ids = edits.transaction(), IdAllocation.unread(account_id)
    if len(tx) or ids.pending:
        edits.commit(tx, ids)
        batches += 1
    return batches
