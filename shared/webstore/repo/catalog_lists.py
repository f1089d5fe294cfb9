"""The panel's catalog reads: one kind of element a page at a time, in id order, paged in the
database (a Query from the id after the cursor, Limit one more than shown), and one element by
id. Whatever the store's size, a page is one Query.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from webstore import keys
from webstore.catalog import Category, CommunityGoal, Coupon, GiftCard, Package, Page
from webstore.db import GSI1, Table, from_item
from webstore.errors import NotFound

# Categories are drawn as one tree: read whole, up to this many (one Query).
CATEGORY_LIMIT = 500


@dataclass(frozen=True)
class Listed:
    """How one kind is stored: its partition, its SK by id, its model."""

    model: type[Any]
    sk: Callable[[int], str]
    in_store_partition: bool = True


LISTED: dict[str, Listed] = {
    "category": Listed(Category, keys.category_sk),
    "package": Listed(Package, keys.package_sk),
    "page": Listed(Page, keys.page_sk),
    "goal": Listed(CommunityGoal, keys.goal_sk),
    "coupon": Listed(Coupon, keys.coupon_sk, in_store_partition=False),
}


@dataclass
class ListPage:
    elements: list[Any]
    next_after: int | None  # the last id shown when there are more; None at the end


class CatalogLists:
    def __init__(self, table: Table) -> None:
        self.table = table

    def page(self, account_id: int, kind: str, after: int | None, limit: int) -> ListPage:
        """Up to `limit` elements of `kind` with ids after `after`: one Query (gift cards: of
        their index, by id)."""
        first = (after or 0) + 1
        if first > keys.INT32_MAX:
            return ListPage([], None)
        if kind == "gift_card":
            items, _ = self.table.query(
                keys.giftcards_of_account(account_id),
                index=GSI1,
                sk_between=(keys.giftcard_gsi1sk(first), keys.giftcard_gsi1sk(keys.INT32_MAX)),
                limit=limit + 1,
            )
            model: type[Any] = GiftCard
        else:
            listed = LISTED[kind]
            pk = keys.store_pk(account_id) if listed.in_store_partition else keys.account_pk(account_id)
            items, _ = self.table.query(pk, sk_between=keys.id_range(listed.sk, first), limit=limit + 1)
            model = listed.model
        shown = [from_item(model, i) for i in items[:limit]]
        return ListPage(shown, shown[-1].id if len(items) > limit else None)

    def categories(self, account_id: int) -> list[Category]:
        """Every category, for the tree and the forms' choices: one Query."""
        items, _ = self.table.query(
            keys.store_pk(account_id), sk_between=keys.id_range(keys.category_sk), limit=CATEGORY_LIMIT
        )
        return [from_item(Category, i) for i in items]

    def element(self, account_id: int, kind: str, element_id: int) -> Any:
        """One element by id (NotFound): one GetItem (gift cards: one Query of their index)."""
        if kind == "gift_card":
            sk = keys.giftcard_gsi1sk(element_id)
            found, _ = self.table.query(
                keys.giftcards_of_account(account_id), index=GSI1, sk_between=(sk, sk)
            )
            item = found[0] if found else None
            model: type[Any] = GiftCard
        else:
            listed = LISTED[kind]
            pk = keys.store_pk(account_id) if listed.in_store_partition else keys.account_pk(account_id)
            item = self.table.get(keys.key(pk, listed.sk(element_id)))
            model = listed.model
        if item is None:
            raise NotFound(f"{kind.replace('_', ' ').capitalize()} {element_id} not found")
        return from_item(model, item)
