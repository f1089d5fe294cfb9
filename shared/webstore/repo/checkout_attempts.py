"""Checkout attempts (`BASKET#{ident}`/`ATTEMPT#{key}`) and the basket claim they hold.

An attempt is one render of the checkout form; its key is the gateway's idempotency key. The
claim marks the basket with the attempt (one live claim per basket); release closes the attempt
and frees the basket (one transaction); completion marks it paid and completes the basket inside
the payment's own transaction (`add_completion`; `complete` for a basket whose order another
attempt recorded).

The claim also puts the attempt's reconciliation on the schedule (`reconcile_key`, due
RECONCILE_AFTER later, in the claim's own transaction): if the attempt stops before it records
or releases, the processor finishes it (`checkout.reconcile`). Completion and release remove the
item in their own transactions; a claimed basket keeps an expiry (never earlier than
CLAIMED_BASKET_LIFETIME after the claim), so a basket the reconciler cannot finish still goes.
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
from webstore.recurring import ScheduleItem, ScheduleKind
from webstore.repo.baskets import AttemptStatus, BasketRepository
from webstore.repo.outbox import OutboxRepository
from webstore.repo.schedule import ScheduleKey, ScheduleRepository, schedule_key

ATTEMPT_TTL = timedelta(days=30)
# An attempt that has neither recorded nor released its claim this long after claiming is
# reconciled by the processor (docs/checkout.md, "Money in limbo").
RECONCILE_AFTER = timedelta(minutes=15)
# A claimed basket expires no earlier than this after the claim (the reconciler's bound, its
# retries and parking, with room to spare); a longer expiry the store set is kept.
CLAIMED_BASKET_LIFETIME = timedelta(days=1)


def reconcile_reference(ident: str, key: str) -> str:
    """The schedule item's reference of attempt `key` of basket `ident`."""
    return f"{ident}/{key}"


def attempt_of_reference(reference: str) -> tuple[str, str]:
    """(basket ident, attempt key) of a reconciliation item's reference."""
    ident, _, key = reference.partition("/")
    return ident, key


def reconcile_key(account_id: int, ident: str, key: str, claimed_at: datetime) -> ScheduleKey:
    """The schedule key of attempt `key`'s reconciliation (due RECONCILE_AFTER after its claim)."""
    return schedule_key(
        ScheduleKind.CHECKOUT, account_id, reconcile_reference(ident, key), claimed_at + RECONCILE_AFTER
    )


def _add_reconcile_done(tx: Transaction, basket: Basket, key: str) -> None:
    """Remove attempt `key`'s reconciliation item (nothing if there is none): the attempt ended."""
    if basket.checkout_attempt == key and basket.checkout_started_at is not None:
        ScheduleRepository.add_done(
            tx, reconcile_key(basket.account_id, basket.ident, key, basket.checkout_started_at)
        )


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
        reconcile = reconcile_key(basket.account_id, basket.ident, key, now)
        ScheduleRepository.add_item(
            tx,
            reconcile,
            ScheduleItem(
                kind=ScheduleKind.CHECKOUT,
                account_id=basket.account_id,
                reference=reconcile_reference(basket.ident, key),
                due_at=now + RECONCILE_AFTER,
            ),
        )
        taken = Conflict("A payment for this basket is already in progress, or the basket changed")
        # A basket being paid for keeps an expiry, long enough for the reconciler to finish it
        # (completion removes it: a paid basket never expires).
        expires = max(basket.expires_at or 0, int((now + CLAIMED_BASKET_LIFETIME).timestamp()))
        tx.update(
            keys.basket_key(basket.ident),
            "SET checkout_attempt = :k, checkout_started_at = :now, email = :email, expires_at = :expires"
            " ADD #v :one",
            condition="#v = :v AND complete = :false AND (attribute_not_exists(checkout_attempt)"
            " OR attribute_type(checkout_attempt, :null) OR checkout_started_at < :stale)",
            names={"#v": "version"},
            values={
                ":k": key,
                ":now": now.isoformat(),
                ":email": basket.email,  # the receipt address, as the checkout form last sent it
                ":expires": expires,
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
        _add_reconcile_done(tx, basket, key)
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
        _add_reconcile_done(tx, basket, key)
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
