"""The catalog import's writes: definitions overwritten, runtime state (counters, balances,
progress) kept. Not a request path: batches and one write per item are fine here."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from webstore import keys
from webstore.catalog import (
    Category,
    CommunityGoal,
    Coupon,
    CreatorCode,
    GoalStatus,
    Package,
    Page,
    Store,
)
from webstore.db import Item, Table, from_item
from webstore.repo.account import AccountRepository
from webstore.repo.catalog_revision import revision_key, stale_revision
from webstore.servers import Server

IMPORT_MANIFEST = "IMPORTED"


@dataclass
class ImportedDefinitions:
    """What the table holds of a store's catalog entities, by id (what a re-import compares with)."""

    store: Store | None = None
    packages: dict[int, Package] = field(default_factory=dict)
    categories: dict[int, Category] = field(default_factory=dict)
    pages: dict[int, Page] = field(default_factory=dict)
    goals: dict[int, CommunityGoal] = field(default_factory=dict)
    coupons: dict[int, Coupon] = field(default_factory=dict)
    servers: dict[int, Server] = field(default_factory=dict)
    webhooks: dict[int, Item] = field(default_factory=dict)  # as stored: secrets sealed
    # Coupon ids the last import wrote (the operator interface creates coupons too; those stay).
    imported_coupons: set[int] = field(default_factory=set)
    # Webhook endpoints `webstore serve --webhook` added: not in any file, so no import removes them.
    pinned_webhooks: set[int] = field(default_factory=set)
    # Ids of each kind the last import's file had (None: a manifest from before this was kept,
    # when every entity counted as the file's). What is not here was made outside the file.
    brought: dict[str, set[int]] | None = None


class DefinitionRepository:
    def __init__(self, table: Table) -> None:
        self.table = table
        self.accounts = AccountRepository(table)

    def imported(self, account_id: int) -> ImportedDefinitions:
        """Every catalog entity of the store as the table holds it (consistent reads, paged
        Queries): the store partition's pages..packages, the account's coupons, servers, webhook
        endpoints and the last import's manifest (never its payments or players)."""
        found = ImportedDefinitions()
        models: dict[str, tuple[type[Any], dict[int, Any]]] = {
            "package": (Package, found.packages),
            "category": (Category, found.categories),
            "page": (Page, found.pages),
            "goal": (CommunityGoal, found.goals),
            "coupon": (Coupon, found.coupons),
            "server": (Server, found.servers),
        }
        account = keys.account_pk(account_id)
        items = [
            *self._all(keys.store_pk(account_id), between=(keys.PAGES_FIRST, keys.PACKAGES_LAST)),
            *self._all(account, between=keys.id_range(keys.coupon_sk)),
            *self._all(account, prefix=keys.SERVER_PREFIX),
            *self._all(account, prefix=keys.WEBHOOK_PREFIX),
        ]
        for item in items:
            entity = item.get("entity")
            if entity == "store":
                found.store = from_item(Store, item)
            elif entity == "webhook_endpoint":
                found.webhooks[int(item["id"])] = item
            elif entity in models:
                model, into = models[entity]
                into[int(item["id"])] = from_item(model, item)
        manifest = self.table.get(keys.key(account, IMPORT_MANIFEST), consistent=True)
        found.imported_coupons = {int(i) for i in (manifest or {}).get("coupons", [])}
        found.pinned_webhooks = {int(i) for i in (manifest or {}).get("pinned_webhooks", [])}
        if manifest and isinstance(manifest.get("brought"), dict):
            found.brought = {k: {int(i) for i in v} for k, v in manifest["brought"].items()}
        return found

    def creator_codes(self, account_id: int) -> list[CreatorCode]:
        """The account's creator codes in code order (`webstore export`; paged Query)."""
        prefix = keys.creator_code_sk("")
        items = self._all(keys.account_pk(account_id), prefix=prefix)
        return [from_item(CreatorCode, i) for i in items]

    def _all(
        self, pk: str, *, between: tuple[str, str] | None = None, prefix: str | None = None
    ) -> list[Item]:
        items: list[Item] = []
        start: Item | None = None
        while True:
            page, start = self.table.query(
                pk, sk_between=between, sk_prefix=prefix, start_key=start, consistent=True
            )
            items.extend(page)
            if start is None:
                return items

    # --- the catalog's revision: two editors at once, the second is told to reload ---

    def revision(self, account_id: int, *, consistent: bool = True) -> int:
        item = self.table.get(self._revision_key(account_id), consistent=consistent)
        return int((item or {}).get("revision", 0))

    def claim_revision(self, account_id: int, seen: int) -> int:
        """The revision after `seen`, if the catalog is still at `seen` (else Conflict: someone
        changed it since the form was read; nothing is written)."""
        self.table.update(
            self._revision_key(account_id),
            "SET revision = :next, entity = :entity",
            condition="(attribute_not_exists(revision) AND :seen = :zero) OR revision = :seen",
            values={":next": seen + 1, ":seen": seen, ":zero": 0, ":entity": "catalog_revision"},
            fails=stale_revision(),
        )
        return seen + 1

    def check_revision(self, account_id: int, seen: int) -> None:
        """Conflict now if the catalog is past `seen` (a save refused before any work; the claim
        at the first write still decides a race)."""
        if self.revision(account_id) != seen:
            raise stale_revision()

    def raise_revision(self, account_id: int) -> int:
        """An import that read no revision (`webstore import`): forms read before it are stale."""
        item = self.table.update(
            self._revision_key(account_id),
            "ADD revision :one SET entity = :entity",
            values={":one": 1, ":entity": "catalog_revision"},
            return_values="UPDATED_NEW",
        )
        return int(item["revision"])

    @staticmethod
    def _revision_key(account_id: int) -> dict[str, str]:
        return revision_key(account_id)

    def record_import(
        self,
        account_id: int,
        coupon_ids: Iterable[int],
        pinned_webhooks: Iterable[int],
        brought: Mapping[str, Iterable[int]] | None = None,
    ) -> None:
        """Remember which coupons came from the file (the next import removes only those), which
        webhook endpoints no import removes, and the ids of each kind the file had (a later
        import removes only those: what was made in the panel or the operator interface stays)."""
        self.table.put(
            {
                **keys.key(keys.account_pk(account_id), IMPORT_MANIFEST),
                "entity": "import_manifest",
                "coupons": sorted(coupon_ids),
                "pinned_webhooks": sorted(pinned_webhooks),
                "brought": {k: sorted(v) for k, v in (brought or {}).items()},
            }
        )

    # --- entities no longer in the file: history (payments, queue, players) keeps its ids ---

    def disable_package(self, account_id: int, package_id: int) -> None:
        """Off sale, kept: payments and subscriptions still name it."""
        self._set(keys.key(keys.store_pk(account_id), keys.package_sk(package_id)), "disabled", True)

    def disable_goal(self, account_id: int, goal_id: int) -> None:
        """Hidden, its progress kept."""
        self._set(
            keys.key(keys.store_pk(account_id), keys.goal_sk(goal_id)), "status", GoalStatus.DISABLED.value
        )

    def remove_category(self, account_id: int, category_id: int) -> None:
        self.table.delete(keys.key(keys.store_pk(account_id), keys.category_sk(category_id)))

    def remove_page(self, account_id: int, page_id: int) -> None:
        self.table.delete(keys.key(keys.store_pk(account_id), keys.page_sk(page_id)))

    def remove_coupon(self, account_id: int, coupon: Coupon) -> None:
        self.accounts.delete_coupon(account_id, coupon)

    def remove_coupon_code(self, account_id: int, code: str) -> None:
        """A coupon's old code, once the file renamed it."""
        self.table.delete(self.accounts.coupon_by_code_key(account_id, code))

    def _set(self, item_key: dict[str, str], name: str, value: Any) -> None:
        self.table.update(item_key, "SET #n = :v", names={"#n": name}, values={":v": value})

    def existing_store(self, account_id: int) -> Store | None:
        """The store as a previous import left it (consistent read), or None on a first import."""
        item = self.table.get(keys.key(keys.store_pk(account_id), keys.STORE_ITEM), consistent=True)
        return from_item(Store, item) if item else None

    def overwrite(self, items: Iterable[Item]) -> None:
        """Put whole items (definitions with no runtime state): BatchWriteItem, 25 a call."""
        self.table.batch_write(items)

    def upsert(self, item: Item, keep: Sequence[str] = ()) -> None:
        """Write an item's definition with UpdateItem SET: attributes not named (counters) survive,
        and the `keep` ones are only set when the item does not have them yet."""
        fields = {k: v for k, v in item.items() if k not in ("PK", "SK")}
        names = {f"#{k}": k for k in fields}
        values: dict[str, Any] = {f":{k}": v for k, v in fields.items()}
        sets = [f"#{k} = if_not_exists(#{k}, :{k})" if k in keep else f"#{k} = :{k}" for k in fields]
        self.table.update(
            {"PK": item["PK"], "SK": item["SK"]}, "SET " + ", ".join(sets), names=names, values=values
        )
