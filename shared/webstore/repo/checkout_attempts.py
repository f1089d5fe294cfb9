"""Checkout attempts (`BASKET#{ident}`/`ATTEMPT#{key}`) and the basket claim they hold.

An attempt is one render of the checkout form; its key is the gateway's idempotency key. The
claim marks the basket with the attempt (one live claim per basket); release closes the attempt
and frees the basket (one transaction); completion marks it paid and completes the basket inside
the payment's own transaction (`add_completion`; `complete` for a basket whose order another
attempt recorded).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from webstore import keys
from webstore.basket import Basket
from webstore.db import Contention, Table, Transaction
from webstore.domain.payment_status import PaymentStatus
from webstore.errors import Conflict
from webstore.events import DomainEvent
from webstore.repo.baskets import AttemptStatus, BasketRepository
from webstore.repo.outbox import OutboxRepository

ATTEMPT_TTL = timedelta(days=30)


class AlreadyPaid(Conflict):
    """The basket's order is recorded: nothing more may be charged for it."""

    def __init__(self) -> None:
        super().__init__("This basket has already been paid")


class ClaimLost(Conflict):
    """The attempt no longer holds the basket's claim: a later attempt took it over."""

    def __init__(self) -> None:
        super().__init__("A newer payment attempt took over this basket; this one was stopped")


class CheckoutAttemptRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    def claim(self, basket: Basket, key: str, order_key: str, now: datetime, stale_before: datetime) -> None:
        """Create the attempt and mark the basket with it, if the basket is the version read,
        not complete, holds no live claim (none, null, or one started before `stale_before`),
        and its order (fulfilment's idempotency key `order_key`) is not recorded: AlreadyPaid.
        The basket's `email` is written with the claim (the checkout form may have set it)."""
        tx = Transaction(self.table)
        tx.check(
            keys.key(keys.account_pk(basket.account_id), keys.order_sk(order_key)),
            "attribute_not_exists(PK)",
            fails=AlreadyPaid(),
        )
        tx.put(
            {
                **keys.checkout_attempt_key(basket.ident, key),
                "entity": "checkout_attempt",
                "status": AttemptStatus.PENDING,
                "created_at": now.isoformat(),
                "expires_at": int((now + ATTEMPT_TTL).timestamp()),
                # the stale claim this one takes over, whose charge must go back
                **({"taken_over": basket.checkout_attempt} if basket.checkout_attempt else {}),
            },
            condition="attribute_not_exists(PK)",
            fails=Conflict("This payment is already being processed; reload the page"),
        )
        taken = Conflict("A payment for this basket is already in progress, or the basket changed")
        tx.update(
            keys.basket_key(basket.ident),
            # A basket being paid for does not expire (no basket.abandoned for a paid order,
            # even if the process dies between fulfilment and completion).
            "SET checkout_attempt = :k, checkout_started_at = :now, email = :email"
            " REMOVE expires_at ADD #v :one",
            condition="#v = :v AND complete = :false AND (attribute_not_exists(checkout_attempt)"
            " OR attribute_type(checkout_attempt, :null) OR checkout_started_at < :stale)",
            names={"#v": "version"},
            values={
                ":k": key,
                ":now": now.isoformat(),
                ":email": basket.email,  # the receipt address, as the checkout form last sent it
                ":one": 1,
                ":v": basket.version,
                ":false": False,
                ":null": "NULL",
                ":stale": stale_before.isoformat(),
            },
            fails=taken,
        )
        try:
            tx.commit()
        except Contention as contention:
            raise taken from contention
        basket.version += 1
        basket.checkout_attempt = key
        basket.checkout_started_at = now

    @staticmethod
    def add_claim_check(tx: Transaction, ident: str, key: str) -> None:
        """The transaction commits only while attempt `key` holds the basket's claim
        (ClaimLost otherwise): a payment is recorded by the attempt that may charge, no other."""
        tx.check(
            keys.basket_key(ident),
            "checkout_attempt = :k",
            values={":k": key},
            fails=ClaimLost(),
        )

    @staticmethod
    def add_completion(tx: Transaction, basket: Basket, key: str, transaction_id: str, now: datetime) -> None:
        """Complete the basket with the payment `transaction_id` and mark attempt `key` paid, in
        the payment's own transaction: it commits only while `key` holds the basket's claim
        (ClaimLost otherwise), so the payment is recorded by the attempt that may charge. The
        basket is written as `basket` shows it (priced as charged); `basket` itself is left as
        it is (a retried transaction calls this again)."""
        completed = completed_copy(basket, transaction_id, now)
        completed.version = basket.version + 1
        tx.put(
            BasketRepository.item(completed),
            condition="checkout_attempt = :k",
            values={":k": key},
            fails=ClaimLost(),
        )
        tx.update(
            keys.checkout_attempt_key(basket.ident, key),
            "SET #s = :s, transaction_id = :t, finished_at = :now",
            names={"#s": "status"},
            values={":s": AttemptStatus.PAID, ":t": transaction_id, ":now": now.isoformat()},
        )

    def release(
        self, basket: Basket, key: str, now: datetime, reason: str, events: Sequence[DomainEvent] = ()
    ) -> None:
        """Close a failed attempt and free the basket for the next one (its TTL comes back),
        writing the attempt's `events` with it (webstore.repo.outbox). An attempt whose claim
        was taken over is only closed: the basket is the new one's."""
        tx = Transaction(self.table)
        self._close(tx, basket.ident, key, now, reason)
        OutboxRepository.add_all(tx, list(events))
        tx.update(
            keys.basket_key(basket.ident),
            "SET expires_at = :expires REMOVE checkout_attempt, checkout_started_at ADD #v :one",
            condition="checkout_attempt = :k",
            names={"#v": "version"},
            values={":k": key, ":one": 1, ":expires": basket.expires_at},
            fails=ClaimLost(),
        )
        try:
            tx.commit()
        except ClaimLost:
            closing = Transaction(self.table)
            self._close(closing, basket.ident, key, now, reason)
            OutboxRepository.add_all(closing, list(events))
            closing.commit()
            return
        basket.version += 1
        basket.checkout_attempt = None
        basket.checkout_started_at = None

    def close(self, ident: str, key: str, now: datetime, reason: str) -> None:
        """Close an attempt that no longer holds the basket (one UpdateItem)."""
        tx = Transaction(self.table)
        self._close(tx, ident, key, now, reason)
        tx.commit()

    @staticmethod
    def _close(tx: Transaction, ident: str, key: str, now: datetime, reason: str) -> None:
        tx.update(
            keys.checkout_attempt_key(ident, key),
            "SET #s = :s, reason = :r, finished_at = :now",
            names={"#s": "status"},
            values={":s": AttemptStatus.DECLINED, ":r": reason, ":now": now.isoformat()},
        )

    def complete(self, basket: Basket, key: str | None, transaction_id: str, now: datetime) -> None:
        """The basket complete with its transaction id (never expiring), the attempt (if one
        was made under `key`) paid."""
        mark_completed(basket, transaction_id, now)
        tx = Transaction(self.table)
        tx.add(BasketRepository(self.table).save_action(basket))
        if key is not None:
            tx.update(
                keys.checkout_attempt_key(basket.ident, key),
                "SET #s = :s, transaction_id = :t, finished_at = :now",
                names={"#s": "status"},
                values={":s": AttemptStatus.PAID, ":t": transaction_id, ":now": now.isoformat()},
            )
        tx.commit()


def mark_completed(basket: Basket, transaction_id: str, now: datetime) -> None:
    """`basket` as completion stores it: complete with its transaction id, never expiring."""
    basket.complete = True
    basket.transaction_id = transaction_id
    basket.payment_status = PaymentStatus.COMPLETE
    basket.expires_at = None
    basket.checkout_attempt = None
    basket.checkout_started_at = None
    basket.updated_at = now


def completed_copy(basket: Basket, transaction_id: str, now: datetime) -> Basket:
    completed = basket.model_copy(deep=True)
    mark_completed(completed, transaction_id, now)
    return completed
