"""Payments and the players who made them, in the account partition.

A payment is `ACCOUNT#a`/`PAY#{id}` (ids dense from the `payment` sequence, so latest-first and
page N are key ranges), also indexed on GSI1 under its player (`PLAYERPAY#a#{username_id}`),
where the player item (`PLAYER#{id}`, GSI1SK `~PLAYER`) sorts last: one GSI Query gives a
player and their latest payments.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from pydantic import Field

from webstore import keys
from webstore.catalog import Model
from webstore.db import GSI1, Item, Table, from_item, to_item
from webstore.errors import NotFound
from webstore.repo.queue import QueuedCommand

# A stored payment's status, its id and its description (COMPAT.md: payment status ids).
STATUS_IDS = {"complete": 1, "refund": 2, "chargeback": 3}
STATUS_DESCRIPTIONS = {"complete": "Complete", "refund": "Refund", "chargeback": "Chargeback"}


class PaymentLine(Model):
    package_id: int
    category_id: int
    name: str
    quantity: int = 1
    base_price: Decimal = Decimal(0)  # list price of one unit
    price: Decimal = Decimal(0)  # paid for the whole line
    variables: dict[str, str] = Field(default_factory=dict)
    username_id: int  # who receives it (the buyer, or the gift target)
    username: str
    uuid: str | None = None
    dynamic: bool = False  # a basket's dynamic package: no catalog entry, no commands
    subscription: bool = False  # a subscription package: the payment starts a recurring payment


class GiftCardUse(Model):
    card_number: str
    amount: Decimal


class PaymentNote(Model):
    created_at: datetime
    note: str


class PaymentRecord(Model):
    """The stored payment, with what fulfilment needs to finish idempotently: the command
    plans (chunks of commands, one transaction each) and how many chunks are done."""

    id: int
    transaction_id: str
    account_id: int
    status: str = "complete"
    amount: Decimal
    currency: str
    gateway: str = "Manual"
    email: str = ""
    ip: str = ""
    country: str = ""
    username_id: int
    username: str
    uuid: str | None = None
    lines: list[PaymentLine]
    coupons: list[str] = Field(default_factory=list)
    giftcards: list[GiftCardUse] = Field(default_factory=list)
    creator_code: str = ""
    basket_ident: str | None = None
    custom: dict[str, Any] | None = None
    notes: list[PaymentNote] = Field(default_factory=list)
    idempotency_key: str
    created_at: datetime
    updated_at: datetime
    plans: dict[str, list[list[QueuedCommand]]] = Field(default_factory=dict)
    chunks_done: dict[str, int] = Field(default_factory=dict)

    def pending_chunks(self, trigger: str) -> list[list[QueuedCommand]]:
        return self.plans.get(trigger, [])[self.chunks_done.get(trigger, 0) :]

    @property
    def status_id(self) -> int:
        return STATUS_IDS[self.status]

    @property
    def status_description(self) -> str:
        return STATUS_DESCRIPTIONS[self.status]


class PaymentRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    @staticmethod
    def item(payment: PaymentRecord) -> Item:
        return to_item(
            payment,
            keys.account_pk(payment.account_id),
            keys.payment_sk(payment.id),
            "payment",
            GSI1PK=keys.payments_of_player(payment.account_id, payment.username_id),
            GSI1SK=keys.payment_sk(payment.id),
        )

    @staticmethod
    def key(account_id: int, payment_id: int) -> dict[str, str]:
        return keys.key(keys.account_pk(account_id), keys.payment_sk(payment_id))

    def get(self, account_id: int, payment_id: int, *, consistent: bool = False) -> PaymentRecord | None:
        item = self.table.get(self.key(account_id, payment_id), consistent=consistent)
        return from_item(PaymentRecord, item) if item else None

    def by_transaction(self, account_id: int, transaction_id: str) -> PaymentRecord:
        """The payment a transaction id names, in this account (NotFound otherwise)."""
        payment = self.get(account_id, keys.payment_id_of(transaction_id), consistent=True)
        if payment is None or payment.transaction_id != transaction_id:
            raise NotFound("Payment not found")
        return payment

    def latest(self, account_id: int, limit: int) -> list[PaymentRecord]:
        items, _ = self.table.query(
            keys.account_pk(account_id),
            sk_between=(keys.payment_sk(1), keys.payment_sk(keys.INT32_MAX)),
            forward=False,
            limit=limit,
        )
        return [from_item(PaymentRecord, i) for i in items]

    def id_range(self, account_id: int, first: int, last: int) -> list[PaymentRecord]:
        """Payments first..last (ids), latest first: one Query of at most last-first+1 items."""
        items, _ = self.table.query(
            keys.account_pk(account_id),
            sk_between=(keys.payment_sk(first), keys.payment_sk(last)),
            forward=False,
            limit=last - first + 1,
        )
        return [from_item(PaymentRecord, i) for i in items]

    def payment_count(self, account_id: int) -> int:
        item = self.table.get(keys.key(keys.account_pk(account_id), keys.SEQUENCES_ITEM))
        return int((item or {}).get("payment", 0))

    # --- players ------------------------------------------------------------------------

    def player_id_by_name(self, account_id: int, username: str) -> int | None:
        item = self.table.get(keys.key(keys.account_pk(account_id), keys.player_name_sk(username)))
        return int(item["username_id"]) if item else None

    def player_id_by_uuid(self, account_id: int, uuid_value: str) -> int | None:
        item = self.table.get(keys.key(keys.account_pk(account_id), keys.player_uuid_sk(uuid_value)))
        return int(item["username_id"]) if item else None

    def player_with_payments(
        self, account_id: int, username_id: int, limit: int
    ) -> tuple[Item | None, list[Item]]:
        """The player item and their latest payments: one GSI1 Query (player sorts last)."""
        items, _ = self.table.query(
            keys.payments_of_player(account_id, username_id), index=GSI1, forward=False, limit=limit + 1
        )
        player = next((i for i in items if i.get("entity") == "player"), None)
        return player, [i for i in items if i.get("entity") == "payment"][:limit]
