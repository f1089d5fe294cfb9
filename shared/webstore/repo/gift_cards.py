"""Gift cards as the operator manages them: by id (GSI1, `keys.giftcards_of_account`), while
the card item itself stays keyed by number, where baskets read and checkout debits it."""

from __future__ import annotations

from decimal import Decimal

from webstore import keys
from webstore.catalog import GiftCard
from webstore.db import GSI1, Table, Transaction, from_item
from webstore.errors import Conflict, NotFound
from webstore.repo.account import AccountRepository


class GiftCardRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    def all(self, account_id: int) -> list[GiftCard]:
        """Every card of the account in id order (one Query per 1 MB page)."""
        cards: list[GiftCard] = []
        start = None
        while True:
            items, start = self.table.query(
                keys.giftcards_of_account(account_id), index=GSI1, start_key=start
            )
            cards.extend(from_item(GiftCard, i) for i in items)
            if start is None:
                return cards

    def by_id(self, account_id: int, card_id: int) -> GiftCard:
        """One Query of the index for exactly that id."""
        sk = keys.giftcard_gsi1sk(card_id)
        items, _ = self.table.query(keys.giftcards_of_account(account_id), index=GSI1, sk_between=(sk, sk))
        if not items:
            raise NotFound("Gift card not found")
        return from_item(GiftCard, items[0])

    def by_code(self, account_id: int, code: str) -> GiftCard:
        """The card with this number (one GetItem of the item baskets read)."""
        item = self.table.get(AccountRepository(self.table).giftcard_key(account_id, code))
        if item is None:
            raise NotFound("Gift card not found")
        return from_item(GiftCard, item)

    def add_new(self, tx: Transaction, account_id: int, card: GiftCard) -> None:
        """A new card in `tx`; its number must be new (Conflict otherwise)."""
        tx.put(
            AccountRepository(self.table).giftcard_item(account_id, card),
            condition="attribute_not_exists(PK)",
            fails=Conflict("A gift card with this number already exists"),
        )

    def top_up(self, account_id: int, card: GiftCard, amount: Decimal) -> GiftCard:
        """Add to the remaining balance of a card that still exists and is not void."""
        item = self.table.update(
            keys.key(keys.account_pk(account_id), keys.giftcard_sk(card.card_number)),
            "SET balance = balance + :amount",
            condition="attribute_exists(PK) AND #void = :no",
            names={"#void": "void"},
            values={":amount": amount, ":no": False},
            return_values="ALL_NEW",
            fails=Conflict("A void gift card cannot be topped up", field="amount"),
        )
        return from_item(GiftCard, item)

    def void(self, account_id: int, card: GiftCard) -> GiftCard:
        """Mark the card void (idempotent); baskets refuse it and checkout will not debit it."""
        item = self.table.update(
            keys.key(keys.account_pk(account_id), keys.giftcard_sk(card.card_number)),
            "SET #void = :yes",
            condition="attribute_exists(PK)",
            names={"#void": "void"},
            values={":yes": True},
            return_values="ALL_NEW",
            fails=NotFound("Gift card not found"),
        )
        return from_item(GiftCard, item)
