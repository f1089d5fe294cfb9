"""Checkout attempts (`BASKET#{ident}`/`ATTEMPT#{key}`) and the basket claim they hold.

An attempt is one render of the checkout form; its key is the gateway's idempotency key. The
claim marks the basket with the attempt (one live claim per basket); release and completion
close the attempt and free or complete the basket, each in one transaction.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from webstore import keys
from webstore.basket import Basket
from webstore.db import Contention, Table, Transaction
from webstore.errors import Conflict
from webstore.payments.status import PaymentStatus
from webstore.repo.baskets import AttemptStatus, BasketRepository

ATTEMPT_TTL = timedelta(days=30)


class CheckoutAttemptRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    def claim(self, basket: Basket, key: str, now: datetime, stale_before: datetime) -> None:
        """Create the attempt and mark the basket with it, if the basket is the version read,
        not complete, and holds no live claim (none, null, or one started before `stale_before`)."""
        tx = Transaction(self.table)
        tx.put(
            {
                **keys.checkout_attempt_key(basket.ident, key),
                "entity": "checkout_attempt",
                "status": AttemptStatus.PENDING,
                "created_at": now.isoformat(),
                "expires_at": int((now + ATTEMPT_TTL).timestamp()),
            },
            condition="attribute_not_exists(PK)",
            fails=Conflict("This payment is already being processed; reload the page"),
        )
        taken = Conflict("A payment for this basket is already in progress, or the basket changed")
        tx.update(
            keys.basket_key(basket.ident),
            # A basket being paid for does not expire (no basket.abandoned for a paid order,
            # even if the process dies between fulfilment and completion).
            "SET checkout_attempt = :k, checkout_started_at = :now REMOVE expires_at ADD #v :one",
            condition="#v = :v AND complete = :false AND (attribute_not_exists(checkout_attempt)"
            " OR attribute_type(checkout_attempt, :null) OR checkout_started_at < :stale)",
            names={"#v": "version"},
            values={
                ":k": key,
                ":now": now.isoformat(),
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

    def release(self, basket: Basket, key: str, now: datetime, reason: str) -> None:
        """Close a failed attempt and free the basket for the next one (its TTL comes back)."""
        tx = Transaction(self.table)
        tx.update(
            keys.checkout_attempt_key(basket.ident, key),
            "SET #s = :s, reason = :r, finished_at = :now",
            names={"#s": "status"},
            values={":s": AttemptStatus.DECLINED, ":r": reason, ":now": now.isoformat()},
        )
        tx.update(
            keys.basket_key(basket.ident),
            "SET expires_at = :expires REMOVE checkout_attempt, checkout_started_at ADD #v :one",
            condition="checkout_attempt = :k",
            names={"#v": "version"},
            values={":k": key, ":one": 1, ":expires": basket.expires_at},
        )
        tx.commit()
        basket.version += 1
        basket.checkout_attempt = None
        basket.checkout_started_at = None

    def complete(self, basket: Basket, key: str, transaction_id: str, now: datetime) -> None:
        """The basket complete with its transaction id (never expiring), the attempt paid."""
        basket.complete = True
        basket.transaction_id = transaction_id
        basket.payment_status = PaymentStatus.COMPLETE
        basket.expires_at = None
        basket.checkout_attempt = None
        basket.checkout_started_at = None
        basket.updated_at = now
        tx = Transaction(self.table)
        tx.add(BasketRepository(self.table).save_action(basket))
        tx.update(
            keys.checkout_attempt_key(basket.ident, key),
            "SET #s = :s, transaction_id = :t, finished_at = :now",
            names={"#s": "status"},
            values={":s": AttemptStatus.PAID, ":t": transaction_id, ":now": now.isoformat()},
        )
        tx.commit()
