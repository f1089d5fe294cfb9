"""Baskets: one item each, written whole under an optimistic `version` condition."""

from __future__ import annotations

from webstore import keys
from webstore.basket import Basket
from webstore.db import ConditionFailed, Item, Table, TransactAction, from_item, to_item
from webstore.errors import Conflict, NotFound
from webstore.item_size import check_item_size


class BasketRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    def get(self, ident: str, *, consistent: bool = True) -> Basket:
        keys.account_of(ident, "Basket")  # malformed idents never reach the table
        item = self.table.get(keys.basket_key(ident), consistent=consistent)
        if item is None:
            raise NotFound("Basket not found")
        return from_item(Basket, item)

    @staticmethod
    def item(basket: Basket) -> Item:
        key = keys.basket_key(basket.ident)
        item = to_item(basket, key["PK"], key["SK"], "basket")
        if basket.expires_at is None:
            item.pop("expires_at", None)
        check_item_size(
            item, what="The basket", field="basket", hint="remove packages or shorten their variable_data"
        )
        return item

    def create(self, basket: Basket) -> None:
        self.table.put(self.item(basket), condition="attribute_not_exists(PK)")

    def save_action(self, basket: Basket) -> TransactAction:
        """Write `basket` as version+1 if nobody wrote it since it was read (for transactions)."""
        expected = basket.version
        basket.version = expected + 1
        return TransactAction.put(
            self.item(basket), condition="#v = :v", names={"#v": "version"}, values={":v": expected}
        )

    def save(self, basket: Basket) -> None:
        """Write `basket` as version+1; Conflict if it changed since it was read."""
        expected = basket.version
        basket.version = expected + 1
        try:
            self.table.put(
                self.item(basket), condition="#v = :v", names={"#v": "version"}, values={":v": expected}
            )
        except ConditionFailed as error:
            basket.version = expected
            raise Conflict("The basket changed meanwhile; try again") from error
        except Exception:
            basket.version = expected
            raise
