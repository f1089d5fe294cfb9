"""The store partition: what storefront reads need, each served by one request.

SK order (see keys.py) puts the store item between the small collections (pages, goals,
stats) and the catalog (categories, packages, sales), so every read below is one Query over a
contiguous range that includes the store item, which proves the public token.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from webstore import keys
from webstore.catalog import Category, CommunityGoal, Package, Page, Sale, Store
from webstore.db import Item, Table, Transaction, from_item, start_read, to_item
from webstore.errors import NotFound
from webstore.repo.shop_theme import Words, words_key, words_of
from webstore.servers import Server

ENTITIES: dict[str, type[Any]] = {
    "page": Page,
    "goal": CommunityGoal,
    "category": Category,
    "package": Package,
}


@dataclass
class StoreView:
    """A store with whichever of its collections a read asked for."""

    store: Store
    pages: list[Page] = field(default_factory=list)
    goals: list[CommunityGoal] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    categories: list[Category] = field(default_factory=list)
    packages: list[Package] = field(default_factory=list)

    @property
    def sales(self) -> list[Sale]:
        return self.store.sales

    def package(self, package_id: int) -> Package | None:
        return next((p for p in self.packages if p.id == package_id), None)

    def category(self, category_id: int) -> Category | None:
        return next((c for c in self.categories if c.id == category_id), None)


class StoreRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    def store(self, account_id: int) -> Store:
        item = self.table.get(keys.key(keys.store_pk(account_id), keys.STORE_ITEM))
        if item is None:
            raise NotFound("Store not found")
        return from_item(Store, item)

    def store_and_words(self, account_id: int) -> tuple[Store, Words]:
        """The store and the owner's words of its translation files (a hosted page's, an
        e-mail's: webstore.repo.shop_theme.ShopWords): one BatchGetItem."""
        store_key = keys.key(keys.store_pk(account_id), keys.STORE_ITEM)
        items = {i["SK"]: i for i in self.table.batch_get([store_key, words_key(account_id)])}
        item = items.get(keys.STORE_ITEM)
        if item is None:
            raise NotFound("Store not found")
        return from_item(Store, item), words_of(items.get(words_key(account_id)["SK"]))

    def package(self, account_id: int, package_id: int) -> Package | None:
        """One package by id: one GetItem."""
        item = self.table.get(keys.key(keys.store_pk(account_id), keys.package_sk(package_id)))
        return from_item(Package, item) if item else None

    def packages(self, account_id: int, package_ids: set[int]) -> dict[int, Package]:
        """Some packages by id, those that exist: one BatchGetItem (none for no ids)."""
        if not package_ids:
            return {}
        pk = keys.store_pk(account_id)
        items = self.table.batch_get([keys.key(pk, keys.package_sk(i)) for i in sorted(package_ids)])
        found = (from_item(Package, i) for i in items if i.get("entity") == "package")
        return {p.id: p for p in found}

    def has_packages(self, account_id: int) -> bool:
        """Whether the store has a package (a disabled one too): one key-only Query of one item."""
        found, _ = self.table.query(
            keys.store_pk(account_id), sk_prefix=keys.package_sk(0)[:5], limit=1, projection="PK, SK"
        )
        return bool(found)

    def catalog(self, account_id: int, *, with_packages: bool) -> StoreView:
        """Store (with its sales) + categories (+ packages): one Query."""
        last = keys.PACKAGES_LAST if with_packages else keys.CATEGORIES_LAST
        return self._range(account_id, keys.STORE_ITEM, last)

    def pages(self, account_id: int) -> StoreView:
        """Pages + store (goals and stats ride along; they are small): one Query."""
        return self._range(account_id, keys.PAGES_FIRST, keys.STORE_ITEM)

    def whole(self, account_id: int) -> StoreView:
        """Pages + goals + stats + store + categories + packages, the whole store partition a
        shop page shows (docs/shop.md): one Query."""
        return self._range(account_id, keys.PAGES_FIRST, keys.PACKAGES_LAST)

    def operator_view(self, account_id: int) -> StoreView:
        """Goals + stats + store + categories + packages (fulfilment, operator admin): one Query."""
        return self._range(account_id, keys.GOALS_FIRST, keys.PACKAGES_LAST)

    def _range(self, account_id: int, first: str, last: str) -> StoreView:
        items: list[Item] = []
        start: Item | None = None
        while True:
            page, start = self.table.query(
                keys.store_pk(account_id), sk_between=(first, last), start_key=start
            )
            items.extend(page)
            if start is None:
                break
        return self._view(items)

    @staticmethod
    def view_of(items: list[Item]) -> StoreView:
        """The view of store partition items read elsewhere (e.g. by a catalog edit)."""
        return StoreRepository._view(items)

    @staticmethod
    def _view(items: list[Item]) -> StoreView:
        store_item = next((i for i in items if i["SK"] == keys.STORE_ITEM), None)
        if store_item is None:
            raise NotFound("Store not found")
        view = StoreView(store=from_item(Store, store_item))
        for item in items:
            entity = item.get("entity")
            if entity == "stats":
                view.stats = {k: v for k, v in item.items() if k not in ("PK", "SK", "entity")}
            elif entity in ENTITIES:
                getattr(view, f"{entity}s" if entity != "category" else "categories").append(
                    from_item(ENTITIES[entity], item)
                )
        return view

    # --- operator views -------------------------------------------------------------------

    def store_and_server(self, account_id: int, server_id: int) -> tuple[Store | None, Server | None]:
        """The store and one of its servers: one BatchGetItem."""
        store_key = keys.key(keys.store_pk(account_id), keys.STORE_ITEM)
        server_key = keys.key(keys.account_pk(account_id), keys.server_sk(server_id))
        found = {(i["PK"], i["SK"]): i for i in self.table.batch_get([store_key, server_key])}
        store = found.get((store_key["PK"], store_key["SK"]))
        server = found.get((server_key["PK"], server_key["SK"]))
        return (from_item(Store, store) if store else None), (from_item(Server, server) if server else None)

    def catalog_with_servers(self, account_id: int) -> tuple[StoreView, dict[int, Server]]:
        """The catalog with packages (one Query) and the servers (one Query), issued together."""
        from webstore.repo.account import AccountRepository  # here: the store's pages read no account

        servers = start_read(AccountRepository(self.table).servers, account_id)
        view = self.catalog(account_id, with_packages=True)
        return view, servers.result()

    def goals(self, account_id: int, limit: int) -> list[CommunityGoal]:
        """The first `limit` community goals in id order: one Query."""
        items, _ = self.table.query(
            keys.store_pk(account_id), sk_between=keys.id_range(keys.goal_sk), limit=limit
        )
        return [from_item(CommunityGoal, i) for i in items]

    def goal(self, account_id: int, goal_id: int) -> CommunityGoal:
        item = self.table.get(keys.key(keys.store_pk(account_id), keys.goal_sk(goal_id)))
        if item is None:
            raise NotFound("Community goal not found")
        return from_item(CommunityGoal, item)

    # --- writes (catalog import and operator updates) ---

    def set_steam_api_key(
        self, account_id: int, sealed: str | None, audit: tuple[str, str, str, datetime]
    ) -> None:
        """The store's sealed Steam Web API key set (None: removed), with its audit entry
        (actor, action, summary, time) in the same transaction."""
        tx = Transaction(self.table)
        key = keys.key(keys.store_pk(account_id), keys.STORE_ITEM)
        missing = NotFound("Store not found")
        if sealed is None:
            tx.update(key, "REMOVE steam_api_key_sealed", condition="attribute_exists(PK)", fails=missing)
        else:
            tx.update(
                key,
                "SET steam_api_key_sealed = :k",
                condition="attribute_exists(PK)",
                values={":k": sealed},
                fails=missing,
            )
        from webstore.repo.audit_log import AuditLog  # here: a store read loads no audit log

        actor, action, summary, now = audit
        AuditLog(self.table).add_to(tx, account_id, actor, action, summary, now)
        tx.commit()

    def store_item(self, store: Store) -> Item:
        return to_item(store, keys.store_pk(store.id), keys.STORE_ITEM, "store")

    def entity_item(self, account_id: int, entity: Any) -> Item:
        sk_of: dict[type[Any], Callable[[int], str]] = {
            Page: keys.page_sk,
            CommunityGoal: keys.goal_sk,
            Category: keys.category_sk,
            Package: keys.package_sk,
        }
        sk = sk_of[type(entity)](entity.id)
        name = next(k for k, v in ENTITIES.items() if v is type(entity))
        return to_item(entity, keys.store_pk(account_id), sk, name)

    def sidebar_with_categories(self, account_id: int) -> StoreView:
        """Goals + stats + store + categories (few and small; the featured package's category
        name needs them): one Query."""
        return self._range(account_id, keys.GOALS_FIRST, keys.CATEGORIES_LAST)
