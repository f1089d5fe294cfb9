"""One catalog change in one transaction: what an edit reads (the catalog at its revision, the
id sequences) and the writes it makes (the element's items, the revision claim, the ids taken,
the audit entry) committed together or not at all.

Definitions are written with UpdateItem SET of their own fields, so runtime state on the same
item (a goal's progress, a gift card's balance, a coupon's redemptions) is never touched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

from webstore import keys
from webstore.catalog import (
    Category,
    CommunityGoal,
    Coupon,
    GiftCard,
    Package,
    Page,
    Store,
    WebhookEndpoint,
)
from webstore.db import (
    GSI1,
    Contention,
    Item,
    Table,
    Transaction,
    from_item,
    start_read,
    to_attribute_value,
    to_item,
)
from webstore.errors import Conflict, NotFound
from webstore.item_size import value_size
from webstore.repo.account import AccountRepository
from webstore.repo.audit_log import AuditLog
from webstore.repo.catalog_revision import bump_in, claim_in, revision_key
from webstore.repo.definitions import ImportedDefinitions
from webstore.repo.sequences import IdAllocation, SequenceRepository
from webstore.repo.store import StoreRepository
from webstore.sealing import seal
from webstore.secret_box import SecretBox
from webstore.servers import Server

__all__ = ["CatalogEdits", "CatalogState", "Contention", "Transaction"]

STORE_PARTITION_MODELS: dict[str, tuple[type[Any], str]] = {
    "package": (Package, "packages"),
    "category": (Category, "categories"),
    "page": (Page, "pages"),
    "goal": (CommunityGoal, "goals"),
}
# Fields an edit never writes: set once (created_at) or runtime state players and payments move.
KEPT = {
    "goal": ("created_at", "current", "times_achieved", "last_achieved"),
    "gift_card": ("created_at", "balance", "starting_balance"),
    "coupon": ("created_at",),
    "package": ("created_at",),
    "page": ("created_at",),
    "category": (),
}


@dataclass
class CatalogState:
    """The catalog as one edit read it: its revision, the store partition's entities, the
    servers, and the coupons and gift cards when the edit needs them; the id sequences."""

    revision: int
    found: ImportedDefinitions
    store_items: list[Item]  # the store partition as read (the operator's view is built from it)
    ids: IdAllocation
    gift_cards: list[GiftCard] = field(default_factory=list)


class CatalogEdits:
    def __init__(self, table: Table) -> None:
        self.table = table

    def read(self, account_id: int, *, coupons: bool = False, gift_cards: bool = False) -> CatalogState:
        """Everything issued at once (one round trip): the store partition (pages .. packages),
        the servers, the revision, the sequences, and the coupons or gift cards if asked.
        Consistent reads: the edit decides on them."""
        pk, account = keys.store_pk(account_id), keys.account_pk(account_id)
        servers = start_read(self._all, account, None, keys.SERVER_PREFIX, None)
        revision_read = start_read(self._revision, account_id)
        ids = start_read(SequenceRepository(self.table).read, account_id)
        empty: list[Item] = []
        coupon_items = (
            start_read(self._all, account, keys.id_range(keys.coupon_sk), None, None) if coupons else None
        )
        card_items = (
            start_read(self._all, keys.giftcards_of_account(account_id), None, None, GSI1)
            if gift_cards
            else None
        )
        store_items = self._all(pk, (keys.PAGES_FIRST, keys.PACKAGES_LAST), None, None)
        found = ImportedDefinitions()
        for item in store_items:
            entity = item.get("entity")
            if entity == "store":
                found.store = from_item(Store, item)
            elif entity in STORE_PARTITION_MODELS:
                model, attribute = STORE_PARTITION_MODELS[entity]
                getattr(found, attribute)[int(item["id"])] = from_item(model, item)
        if found.store is None:
            raise NotFound(f"Store {account_id} not found")
        for item in servers.result():
            found.servers[int(item["id"])] = from_item(Server, item)
        for item in coupon_items.result() if coupon_items else empty:
            found.coupons[int(item["id"])] = from_item(Coupon, item)
        cards = [from_item(GiftCard, i) for i in (card_items.result() if card_items else empty)]
        revision = int((revision_read.result() or {}).get("revision", 0))
        return CatalogState(revision, found, store_items, ids.result(), sorted(cards, key=lambda c: c.id))

    def gift_cards(self, account_id: int) -> list[GiftCard]:
        """The account's gift cards by id (an import compares its file's with them)."""
        items = self._all(keys.giftcards_of_account(account_id), None, None, GSI1)
        return sorted((from_item(GiftCard, i) for i in items), key=lambda c: c.id)

    def _revision(self, account_id: int) -> Item | None:
        return self.table.get(revision_key(account_id), consistent=True)

    def _all(
        self, pk: str, between: tuple[str, str] | None, prefix: str | None, index: str | None
    ) -> list[Item]:
        items: list[Item] = []
        start: Item | None = None
        while True:
            page, start = self.table.query(
                pk,
                sk_between=between,
                sk_prefix=prefix,
                start_key=start,
                index=index,
                consistent=index is None,
            )
            items.extend(page)
            if start is None:
                return items

    # --- the writes of one change, added to one transaction --------------------------------

    def transaction(self) -> Transaction:
        return Transaction(self.table)

    @staticmethod
    def claim(tx: Transaction, account_id: int, seen: int, fails: Conflict | None = None) -> None:
        claim_in(tx, account_id, seen, fails)

    @staticmethod
    def bump(tx: Transaction, account_id: int) -> None:
        bump_in(tx, account_id)

    def audit(
        self, tx: Transaction, account_id: int, actor: str, action: str, summary: str, now: datetime
    ) -> None:
        AuditLog(self.table).add_to(tx, account_id, actor, action, summary, now)

    def save_entity(self, tx: Transaction, account_id: int, kind: str, entity: Any, *, new: bool) -> None:
        """A category, package, page or goal: created (its id must be free) or its definition set."""
        item = StoreRepository(self.table).entity_item(account_id, entity)
        self._save(tx, item, kind, new=new, label=f"{kind.replace('_', ' ')} {entity.id}")

    def save_coupon(
        self, tx: Transaction, account_id: int, coupon: Coupon, old: Coupon | None, ids: IdAllocation
    ) -> None:
        """By id and by code; a new code must be free (codes are unique, whatever their case)."""
        by_id, by_code = AccountRepository(self.table).coupon_items(account_id, coupon)
        self._save(tx, by_id, "coupon", new=old is None, label=f"coupon {coupon.id}")
        if old is not None and old.code.upper() == coupon.code.upper():
            self._save(tx, by_code, "coupon", new=False, label=f"coupon {coupon.id}")
            return
        if old is not None:
            tx.delete(AccountRepository(self.table).coupon_by_code_key(account_id, old.code))
        else:
            ids.add("coupon_count", 1)
        tx.put(
            by_code,
            condition="attribute_not_exists(PK)",
            fails=Conflict(f"A coupon with code {coupon.code!r} already exists", field="code"),
        )

    def remove_coupon(self, tx: Transaction, account_id: int, coupon: Coupon, ids: IdAllocation) -> None:
        accounts = AccountRepository(self.table)
        tx.delete(
            keys.key(keys.account_pk(account_id), keys.coupon_sk(coupon.id)),
            condition="attribute_exists(PK)",
            fails=NotFound("Coupon not found"),
        )
        tx.delete(accounts.coupon_by_code_key(account_id, coupon.code))
        ids.add("coupon_count", -1)

    def save_gift_card(self, tx: Transaction, account_id: int, card: GiftCard, *, new: bool) -> None:
        item = AccountRepository(self.table).giftcard_item(account_id, card)
        self._save(
            tx, item, "gift_card", new=new, label=f"gift card {card.id}", what="A gift card with this number"
        )

    def remove_entity(self, tx: Transaction, account_id: int, kind: str, element_id: int) -> None:
        """As when a file drops it: a package is disabled (payments name it), a goal disabled (its
        progress kept), a category or page removed."""
        sk = {
            "package": keys.package_sk,
            "goal": keys.goal_sk,
            "category": keys.category_sk,
            "page": keys.page_sk,
        }
        key = keys.key(keys.store_pk(account_id), sk[kind](element_id))
        missing = NotFound(f"{kind.capitalize()} {element_id} not found")
        if kind in ("package", "goal"):
            name, value = ("disabled", True) if kind == "package" else ("status", "disabled")
            tx.update(
                key,
                "SET #n = :v",
                condition="attribute_exists(PK)",
                names={"#n": name},
                values={":v": value},
                fails=missing,
            )
        else:
            tx.delete(key, condition="attribute_exists(PK)", fails=missing)

    def save_server(
        self, tx: Transaction, account_id: int, server: Server, old: Server | None, fails: Conflict | NotFound
    ) -> None:
        """A server, new (its id must be free) or replacing `old` (on condition that it is still as
        read: `fails` otherwise), and its secret's lookup item (`SECRET#{hash}` → the server):
        a new hash is put (it must be free), the one it replaces deleted."""
        item = to_item(server, keys.account_pk(account_id), keys.server_sk(server.id), "server")
        if old is None:
            tx.put(item, condition="attribute_not_exists(PK)", fails=fails)
        else:
            tx.put(
                item,
                condition="#name = :old_name AND next_check = :old_check AND "
                + (
                    "secret_hash = :old_hash"
                    if old.secret_hash
                    else "(attribute_not_exists(secret_hash) OR secret_hash = :old_hash)"
                ),
                names={"#name": "name"},
                values={":old_name": old.name, ":old_check": old.next_check, ":old_hash": old.secret_hash},
                fails=fails,
            )
        previous = old.secret_hash if old else ""
        if previous == server.secret_hash:
            return
        if previous:
            tx.delete(keys.secret_key(previous))
        if server.secret_hash:
            tx.put(
                {
                    **keys.secret_key(server.secret_hash),
                    "entity": "secret",
                    "account_id": account_id,
                    "server_id": server.id,
                },
                condition="attribute_not_exists(PK)",
                fails=Conflict(f"server {server.id}: another server has this secret", field="secret"),
            )

    def remove_server(self, tx: Transaction, account_id: int, server: Server) -> None:
        """The server and its secret's lookup item: a plugin polling with it is refused from now on."""
        tx.delete(
            keys.key(keys.account_pk(account_id), keys.server_sk(server.id)),
            condition="attribute_exists(PK)",
            fails=NotFound(f"Server {server.id} not found"),
        )
        if server.secret_hash:
            tx.delete(keys.secret_key(server.secret_hash))

    def save_webhook(
        self,
        tx: Transaction,
        account_id: int,
        endpoint: WebhookEndpoint,
        box: SecretBox,
        *,
        new: bool,
        fails: Conflict | NotFound | None = None,
    ) -> None:
        """A webhook endpoint, its signing secret sealed with `box` (never stored as given): new
        (its id must be free) or its whole definition replaced (it must exist)."""
        item = AccountRepository(self.table).webhook_item(account_id, endpoint, partial(seal, box))
        if new:
            tx.put(
                item,
                condition="attribute_not_exists(PK)",
                fails=fails or Conflict(f"Webhook endpoint {endpoint.id} already exists"),
            )
        else:
            tx.put(
                item,
                condition="attribute_exists(PK)",
                fails=fails or NotFound(f"Webhook endpoint {endpoint.id} not found"),
            )

    def remove_webhook(self, tx: Transaction, account_id: int, endpoint_id: int) -> None:
        tx.delete(
            keys.key(keys.account_pk(account_id), keys.webhook_sk(endpoint_id)),
            condition="attribute_exists(PK)",
            fails=NotFound(f"Webhook endpoint {endpoint_id} not found"),
        )

    def create_store(self, tx: Transaction, store: Store) -> None:
        """A new store's item (its first import): the id must be free."""
        item = StoreRepository(self.table).store_item(store)
        tx.put(item, condition="attribute_not_exists(PK)", fails=Conflict(f"Store {store.id} already exists"))

    @staticmethod
    def size(tx: Transaction) -> tuple[int, int]:
        """How many actions `tx` holds and about how many bytes they write (a batch's limits)."""
        return len(tx), sum(value_size(action.body) for action in tx.actions)

    def save_store(self, tx: Transaction, store: Store, old: Store) -> None:
        """The store item's fields that differ from `old` (settings, sales, sidebar, gateways)."""
        item = StoreRepository(self.table).store_item(store)
        before = StoreRepository(self.table).store_item(old)
        changed = {k: v for k, v in item.items() if k not in ("PK", "SK") and before.get(k) != v}
        gone = [k for k in before if k not in item]
        if not changed and not gone:
            return
        names = {f"#f{i}": k for i, k in enumerate([*changed, *gone])}
        sets = [f"#f{i} = :f{i}" for i, _ in enumerate(changed)]
        removes = [f"#f{i + len(changed)}" for i, _ in enumerate(gone)]
        expression = " ".join(
            part
            for part in (
                "SET " + ", ".join(sets) if sets else "",
                "REMOVE " + ", ".join(removes) if removes else "",
            )
            if part
        )
        tx.update(
            {"PK": item["PK"], "SK": item["SK"]},
            expression,
            condition="attribute_exists(PK)",
            names=names,
            values={f":f{i}": v for i, v in enumerate(changed.values())} or None,
            fails=NotFound("Store not found"),
        )

    def _save(
        self, tx: Transaction, item: Item, kind: str, *, new: bool, label: str, what: str | None = None
    ) -> None:
        if new:
            tx.put(
                item,
                condition="attribute_not_exists(PK)",
                fails=Conflict(f"{what or label.capitalize()} already exists"),
            )
            return
        kept = set(KEPT.get(kind, ()))
        fields = {k: v for k, v in item.items() if k not in ("PK", "SK") and k not in kept}
        names = {f"#f{i}": k for i, k in enumerate(fields)}
        tx.update(
            {"PK": item["PK"], "SK": item["SK"]},
            "SET " + ", ".join(f"#f{i} = :f{i}" for i in range(len(fields))),
            condition="attribute_exists(PK)",
            names=names,
            values={f":f{i}": to_attribute_value(v) for i, v in enumerate(fields.values())},
            fails=NotFound(f"{label.capitalize()} not found"),
        )

    def commit(self, tx: Transaction, ids: IdAllocation) -> None:
        """The transaction with the ids it took (Contention: a concurrent writer took them first)."""
        ids.add_to(tx)
        tx.commit()
