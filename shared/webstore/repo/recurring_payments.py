"""Recurring payments and timed-package timers, in the account partition (webstore.recurring).

Contract: recurring payment PK `ACCOUNT#{a}`, SK `keys.recurring_payment_sk(reference)`; body =
RecurringPayment, plus `period_end_key` (its `next_payment_at` as a sortable schedule moment, for
conditions). Timer PK `ACCOUNT#{a}`, SK `keys.timed_package_sk(player, package)`; body =
TimedPackage. Fulfilment writes both in the payment's transaction; the processor changes them
in the transaction of what it did; the cancellation use cases add `add_cancel_request` or
`add_cancel_abort` to a transaction with their event (conditional updates: see the contract in
webstore.recurring; `request_cancel` and `abort_cancel` are the same updates alone).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from webstore import keys
from webstore.db import GSI2, ConditionFailed, Item, Table, Transaction, from_item, to_item
from webstore.errors import Conflict, NotFound
from webstore.recurring import ONGOING_RECURRING, RecurringPayment, TimedPackage, schedule_moment
from webstore.repo.subscription_counts import SubscriptionCounts

# Fields a change writes; the cancellation request is left to its own writers unless a change
# ends the subscription (then `cancelled_at`, `cancel_reason` are set too).
_CHANGED_FIELDS = (
    "status",
    "updated_at",
    "next_payment_at",
    "retry_at",
    "fail_count",
    "payment_sequence",
    "last_payment_id",
    "lines",
    "amount",
    "schedule_sk",
    "renewal_action",
)
_ENDING_FIELDS = ("cancelled_at", "cancel_reason")
# Written only by changes of records that keep a payment history (records written before it was
# kept stay without one; see webstore.recurring.history_with).
_HISTORY_FIELDS = ("payment_history", "payment_count")


def recurring_key(account_id: int, reference: str) -> dict[str, str]:
    return keys.key(keys.account_pk(account_id), keys.recurring_payment_sk(reference))


def timed_key(account_id: int, username_id: int, package_id: int) -> dict[str, str]:
    return keys.key(keys.account_pk(account_id), keys.timed_package_sk(username_id, package_id))


def _period_end_key(recurring: RecurringPayment) -> str | None:
    return schedule_moment(recurring.next_payment_at) if recurring.next_payment_at else None


# The values of the "still an ongoing recurring payment" part of a cancellation's condition
# (`entity = :e AND #status IN (:s1, :s2)`), shared by the request and its withdrawal.
_ONGOING_VALUES = {":e": "recurring_payment", ":s1": ONGOING_RECURRING[0], ":s2": ONGOING_RECURRING[1]}


class RecurringPaymentRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    @staticmethod
    def item(recurring: RecurringPayment) -> Item:
        item = to_item(
            recurring,
            keys.account_pk(recurring.account_id),
            keys.recurring_payment_sk(recurring.reference),
            "recurring_payment",
            period_end_key=_period_end_key(recurring),
            # the panel's list of subscriptions, newest first (never changes after creation)
            GSI2PK=keys.recurring_of_account(recurring.account_id),
            GSI2SK=keys.recurring_gsi2sk(recurring.initial_payment_id),
        )
        if recurring.cancel_requested_at is None:  # its presence is what conditions test
            item.pop("cancel_requested_at")
        if recurring.payment_history is None:  # (seeded) records from before the history was kept
            item.pop("payment_history")
        return item

    def get(self, account_id: int, reference: str, *, consistent: bool = True) -> RecurringPayment | None:
        item = self.table.get(recurring_key(account_id, reference), consistent=consistent)
        return (
            from_item(RecurringPayment, item) if item and item.get("entity") == "recurring_payment" else None
        )

    def newest(
        self, account_id: int, below: int | None, limit: int
    ) -> tuple[list[RecurringPayment], int | None]:
        """Up to `limit` of the store's recurring payments started before the payment id
        `below` (None: the newest), newest first, and the id to continue below (None: no
        older ones): one GSI2 Query."""
        last = (below - 1) if below is not None else keys.INT32_MAX
        if last < 1:
            return [], None
        items, _ = self.table.query(
            keys.recurring_of_account(account_id),
            index=GSI2,
            sk_between=(keys.recurring_gsi2sk(1), keys.recurring_gsi2sk(last)),
            forward=False,
            limit=limit + 1,
        )
        found = [from_item(RecurringPayment, i) for i in items]
        return found[:limit], (found[limit - 1].initial_payment_id if len(found) > limit else None)

    def get_timed(self, account_id: int, username_id: int, package_id: int) -> TimedPackage | None:
        item = self.table.get(timed_key(account_id, username_id, package_id), consistent=True)
        return from_item(TimedPackage, item) if item else None

    # --- transaction actions ---------------------------------------------------------------------

    @staticmethod
    def add_new(tx: Transaction, recurring: RecurringPayment) -> None:
        """The new record and, when it is ongoing, one more in the store's subscription count."""
        tx.put(RecurringPaymentRepository.item(recurring), condition="attribute_not_exists(PK)")
        if recurring.ongoing:
            SubscriptionCounts.add_change(tx, recurring, 1)

    @staticmethod
    def add_change(
        tx: Transaction,
        before: RecurringPayment,
        after: RecurringPayment,
        *,
        cancel_requested: bool | None = None,
        fails: Conflict | None = None,
    ) -> None:
        """Write `after`'s standing, conditional on the status, sequence, fail count, amount and
        payment count read (one cycle is acted on once; a concurrent upgrade is not overwritten),
        and the store's subscription count when the change ends it (a second action).
        `cancel_requested`: True/False also requires a pending cancellation request to exist /
        not exist (the end of a cancelled period, an abort)."""
        dumped = after.model_dump()
        fields: tuple[str, ...] = _CHANGED_FIELDS if after.ongoing else _CHANGED_FIELDS + _ENDING_FIELDS
        if after.payment_history is not None:
            fields += _HISTORY_FIELDS
        names = {f"#{name}": name for name in fields}
        values: dict[str, Any] = {f":{name}": dumped[name] for name in fields}
        sets = [f"#{name} = :{name}" for name in fields]
        sets.append("period_end_key = :pek")
        values[":pek"] = _period_end_key(after)
        values.update(
            {
                ":old_status": before.status,
                ":old_seq": before.payment_sequence,
                ":old_fails": before.fail_count,
                ":old_amount": before.amount,
            }
        )
        condition = (
            "#status = :old_status AND #payment_sequence = :old_seq AND #fail_count = :old_fails"
            " AND #amount = :old_amount"  # an upgrade (lines and amount) landing meanwhile
        )
        if after.payment_history is not None:  # a payment added meanwhile is not dropped
            condition += " AND #payment_count = :old_count"
            values[":old_count"] = before.payment_count
        if cancel_requested is True:
            condition += " AND attribute_exists(cancel_requested_at)"
        elif cancel_requested is False:
            condition += " AND attribute_not_exists(cancel_requested_at)"
        tx.update(
            recurring_key(before.account_id, before.reference),
            "SET " + ", ".join(sets),
            condition=condition,
            names=names,
            values=values,
            fails=fails,
        )
        if delta := int(after.ongoing) - int(before.ongoing):  # ended (or, never yet, resumed)
            SubscriptionCounts.add_change(tx, after, delta)

    @staticmethod
    def change_actions(before: RecurringPayment, after: RecurringPayment) -> int:
        """How many transaction actions `add_change(tx, before, after)` takes."""
        return 1 + int(before.ongoing != after.ongoing)

    @staticmethod
    def add_timer(tx: Transaction, timer: TimedPackage, previous: TimedPackage | None) -> None:
        """Write the timer, conditional on it being what was read (absent, or the same expiry)."""
        item = to_item(
            timer,
            keys.account_pk(timer.account_id),
            keys.timed_package_sk(timer.username_id, timer.package_id),
            "timed_package",
        )
        if previous is None:
            tx.put(item, condition="attribute_not_exists(PK)")
        else:
            tx.put(
                item,
                condition="expires_at = :old AND expired = :was_expired",
                values={":old": previous.expires_at, ":was_expired": previous.expired},
            )

    # --- cancellation (the `cancel` use cases) ---------------------------------------------------

    def request_cancel(self, account_id: int, reference: str, now: datetime, reason: str) -> RecurringPayment:
        """Ask for the subscription to end at the end of its paid period (one conditional update).
        NotFound for an unknown reference; Conflict when it has ended or a request is pending."""
        try:
            item = self.table.update(
                recurring_key(account_id, reference),
                "SET cancel_requested_at = :now, cancel_reason = :reason, updated_at = :now",
                condition="entity = :e AND #status IN (:s1, :s2)"
                " AND attribute_not_exists(cancel_requested_at)",
                names={"#status": "status"},
                values={":now": now, ":reason": reason, **_ONGOING_VALUES},
                return_values="ALL_NEW",
            )
        except ConditionFailed as error:
            raise self._refusal(account_id, reference, "already has a cancellation pending") from error
        return from_item(RecurringPayment, item)

    def abort_cancel(self, account_id: int, reference: str, now: datetime) -> RecurringPayment:
        """Withdraw a pending cancellation while the paid period runs (one conditional update).
        NotFound for an unknown reference; Conflict when nothing is pending or it has ended."""
        try:
            item = self.table.update(
                recurring_key(account_id, reference),
                "REMOVE cancel_requested_at, cancel_reason SET updated_at = :now",
                condition="entity = :e AND #status IN (:s1, :s2) AND attribute_exists(cancel_requested_at)"
                " AND period_end_key > :now_key",
                names={"#status": "status"},
                values={":now": now, ":now_key": schedule_moment(now), **_ONGOING_VALUES},
                return_values="ALL_NEW",
            )
        except ConditionFailed as error:
            raise self._refusal(account_id, reference, "has no cancellation pending") from error
        return from_item(RecurringPayment, item)

    @staticmethod
    def add_cancel_request(
        tx: Transaction, seen: RecurringPayment, now: datetime, reason: str, *, fails: Conflict
    ) -> RecurringPayment:
        """`request_cancel` in `tx`, conditional also on the subscription being as `seen` (its
        `updated_at`): the subscription as it will be, for the change's event."""
        tx.update(
            recurring_key(seen.account_id, seen.reference),
            "SET cancel_requested_at = :now, cancel_reason = :reason, updated_at = :now",
            condition="entity = :e AND #status IN (:s1, :s2)"
            " AND attribute_not_exists(cancel_requested_at) AND updated_at = :seen",
            names={"#status": "status"},
            values={":now": now, ":reason": reason, ":seen": seen.updated_at, **_ONGOING_VALUES},
            fails=fails,
        )
        return seen.model_copy(
            update={"cancel_requested_at": now, "cancel_reason": reason, "updated_at": now}
        )

    @staticmethod
    def add_cancel_abort(
        tx: Transaction, seen: RecurringPayment, now: datetime, *, fails: Conflict
    ) -> RecurringPayment:
        """`abort_cancel` in `tx`, conditional also on the subscription being as `seen`."""
        tx.update(
            recurring_key(seen.account_id, seen.reference),
            "REMOVE cancel_requested_at, cancel_reason SET updated_at = :now",
            condition="entity = :e AND #status IN (:s1, :s2) AND attribute_exists(cancel_requested_at)"
            " AND period_end_key > :now_key AND updated_at = :seen",
            names={"#status": "status"},
            values={
                ":now": now,
                ":now_key": schedule_moment(now),
                ":seen": seen.updated_at,
                **_ONGOING_VALUES,
            },
            fails=fails,
        )
        return seen.model_copy(update={"cancel_requested_at": None, "cancel_reason": None, "updated_at": now})

    def refusal(self, account_id: int, reference: str, pending: str) -> Exception:
        return self._refusal(account_id, reference, pending)

    def _refusal(self, account_id: int, reference: str, pending: str) -> Exception:
        current = self.get(account_id, reference)
        if current is None:
            return NotFound("Recurring payment not found")
        if not current.ongoing:
            return Conflict(f"The recurring payment has ended ({current.status.description})")
        return Conflict(f"The recurring payment {pending}")
