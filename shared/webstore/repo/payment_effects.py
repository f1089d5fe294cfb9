"""What recording a payment changes besides the payment itself, and what their conditions
compare against: coupon redemptions and uses, gift card balances, purchase counts per player,
community goal progress, the store stats (`4STATS`) and each player's monthly spend.

`read` fetches everything one attempt needs in one consistent BatchGetItem (the id sequences
too: the payment takes its ids from them in its transaction); the `add_*` writers
put their actions, labelled with the domain error a failed condition means, into the payment's
transaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from webstore import keys
from webstore.catalog import CommunityGoal, Coupon
from webstore.db import Item, Table, Transaction, from_item, to_item
from webstore.errors import Conflict
from webstore.players import StoreStats
from webstore.recurring import TimedPackage
from webstore.repo.payments import GiftCardUse
from webstore.repo.player_tiers import tier_slot_key
from webstore.repo.recurring_payments import timed_key
from webstore.repo.sequences import IdAllocation, SequenceRepository


@dataclass(frozen=True)
class GoalRead:
    """A goal as read, with the stored figures its progress write is conditional on."""

    goal: CommunityGoal
    stored_current: Decimal | None
    stored_times: int | None


@dataclass
class EffectReads:
    """What one attempt at recording a payment compares against (one BatchGetItem)."""

    order_payment_id: int | None = None  # the payment an earlier run recorded for this order
    ids: IdAllocation = field(default_factory=lambda: IdAllocation(0, None))  # the sequences as read
    coupons: dict[str, Coupon] = field(default_factory=dict)  # by upper-case code
    goals: list[GoalRead] = field(default_factory=list)
    tier_slots: dict[tuple[int, int], int] = field(default_factory=dict)  # (player, category) → tier id
    stats: StoreStats = field(default_factory=StoreStats)
    stats_version: int | None = None  # None: no stats item yet; 0: one without a version
    spent_before: Decimal = Decimal(0)  # the buyer's spend this month
    timers: dict[tuple[int, int], TimedPackage] = field(default_factory=dict)  # (player, package)


@dataclass(frozen=True)
class EffectKeys:
    """Which items an attempt reads."""

    account_id: int
    idempotency_key: str
    buyer_id: int
    month: str  # YYYY-MM of the payment
    coupon_codes: tuple[str, ...] = ()
    goal_ids: tuple[int, ...] = ()
    tier_slots: tuple[tuple[int, int], ...] = ()  # (player, category)
    timers: tuple[tuple[int, int], ...] = ()  # (player, timed package)


def _key(item: Item) -> tuple[str, str]:
    return item["PK"], item["SK"]


class PaymentEffectsRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    # --- the read ---------------------------------------------------------------------------

    def read(self, wanted: EffectKeys) -> EffectReads:
        a = wanted.account_id
        pk = keys.account_pk(a)
        order_key = keys.key(pk, keys.order_sk(wanted.idempotency_key))
        seq_key = SequenceRepository.key(a)
        stats_key = keys.key(keys.store_pk(a), keys.STATS_ITEM)
        spend_key = keys.key(pk, keys.spend_sk(wanted.month, wanted.buyer_id))
        coupon_keys = {code.upper(): coupon_code_key(a, code) for code in wanted.coupon_codes}
        goal_keys = [keys.key(keys.store_pk(a), keys.goal_sk(goal_id)) for goal_id in wanted.goal_ids]
        slot_keys = {slot: tier_slot_key(a, *slot) for slot in wanted.tier_slots}
        all_keys = [order_key, seq_key, stats_key, spend_key, *coupon_keys.values(), *goal_keys]
        all_keys += slot_keys.values()
        timer_keys = {timer: timed_key(a, *timer) for timer in wanted.timers}
        all_keys += timer_keys.values()
        found = {_key(i): i for i in self.table.batch_get(all_keys, consistent=True)}

        def get(key: Mapping[str, str]) -> Item | None:
            return found.get((key["PK"], key["SK"]))

        reads = EffectReads()
        order = get(order_key)
        reads.order_payment_id = int(order["payment_id"]) if order else None
        reads.ids = SequenceRepository.allocation(a, found)
        for code, key in coupon_keys.items():
            if (item := get(key)) is not None:
                reads.coupons[code] = from_item(Coupon, item)
        for key in goal_keys:
            if (item := get(key)) is not None:
                reads.goals.append(
                    GoalRead(
                        from_item(CommunityGoal, item),
                        Decimal(str(item["current"])) if "current" in item else None,
                        int(item["times_achieved"]) if "times_achieved" in item else None,
                    )
                )
        for slot, key in slot_keys.items():
            if (item := get(key)) is not None:
                reads.tier_slots[slot] = int(item["tier_id"])
        for timer, key in timer_keys.items():
            if (item := get(key)) is not None:
                reads.timers[timer] = from_item(TimedPackage, item)
        stats_item = get(stats_key)
        if stats_item is not None:
            reads.stats = from_item(StoreStats, stats_item)
            reads.stats_version = int(stats_item.get("version", 0))
        reads.spent_before = Decimal(str((get(spend_key) or {}).get("total", 0)))
        return reads

    # --- the writes -------------------------------------------------------------------------

    @staticmethod
    def add_coupon_redemption(tx: Transaction, account_id: int, coupon: Coupon, username_id: int) -> None:
        """One redemption of the coupon and one use by the player, within their limits."""
        key = coupon_code_key(account_id, coupon.code)
        if coupon.redeem_unlimited:
            tx.update(key, "ADD redemptions :one", values={":one": 1})
        else:
            tx.update(
                key,
                "ADD redemptions :one",
                condition="attribute_exists(PK)"
                " AND (attribute_not_exists(redemptions) OR redemptions < :limit)",
                values={":one": 1, ":limit": coupon.expire_limit},
                fails=Conflict(f"Coupon {coupon.code} has reached its redemption limit", field="coupons"),
            )
        use_key = keys.key(keys.account_pk(account_id), keys.coupon_use_sk(coupon.id, username_id))
        values: dict[str, Any] = {":one": 1, ":e": "coupon_use"}
        if coupon.user_limit:
            tx.update(
                use_key,
                "ADD uses :one SET entity = :e",
                condition="attribute_not_exists(uses) OR uses < :limit",
                values={**values, ":limit": coupon.user_limit},
                fails=Conflict(
                    f"Coupon {coupon.code} may be used {coupon.user_limit} time(s) per player",
                    field="coupons",
                ),
            )
        else:
            tx.update(use_key, "ADD uses :one SET entity = :e", values=values)

    @staticmethod
    def add_giftcard_debit(tx: Transaction, account_id: int, card: GiftCardUse) -> None:
        tx.update(
            keys.key(keys.account_pk(account_id), keys.giftcard_sk(card.card_number)),
            "SET balance = balance - :amount",
            condition="attribute_exists(PK) AND balance >= :amount AND #void = :no",
            names={"#void": "void"},
            values={":amount": card.amount, ":no": False},
            fails=Conflict(f"Gift card {card.card_number} does not cover {card.amount}"),
        )

    @staticmethod
    def add_purchases(
        tx: Transaction,
        account_id: int,
        username_id: int,
        counts: Mapping[int, int],
        limits: Mapping[int, int],
    ) -> None:
        """Add a player's purchase counts per package; a package in `limits` (its user_limit)
        may not go past it."""
        adds, conditions = [], []
        names: dict[str, str] = {}
        values: dict[str, Any] = {":e": "purchases"}
        for package_id, count in counts.items():
            names[f"#p{package_id}"] = keys.purchased_attribute(package_id)
            values[f":n{package_id}"] = count
            adds.append(f"#p{package_id} :n{package_id}")
            if limits.get(package_id):
                values[f":max{package_id}"] = limits[package_id] - count
                conditions.append(
                    f"(attribute_not_exists(#p{package_id}) OR #p{package_id} <= :max{package_id})"
                )
        tx.update(
            keys.key(keys.account_pk(account_id), keys.purchases_sk(username_id)),
            "ADD " + ", ".join(adds) + " SET entity = :e",
            condition=" AND ".join(conditions) or None,
            names=names,
            values=values,
            fails=Conflict("A package's purchase limit per player has been reached") if conditions else None,
        )

    @staticmethod
    def add_goal_progress(
        tx: Transaction, account_id: int, read: GoalRead, progressed: CommunityGoal, now: datetime
    ) -> None:
        """The goal's new progress, conditional on the figures it was computed from."""
        values: dict[str, Any] = {
            ":current": progressed.current,
            ":times": progressed.times_achieved,
            ":last": progressed.last_achieved,
            ":status": progressed.status,
            ":now": now,
        }
        conditions = []
        for attribute, placeholder, stored in (
            ("current", ":old", read.stored_current),
            ("times_achieved", ":old_times", read.stored_times),
        ):
            if stored is None:
                conditions.append(f"attribute_not_exists(#{attribute})")
            else:
                conditions.append(f"#{attribute} = {placeholder}")
                values[placeholder] = stored
        tx.update(
            keys.key(keys.store_pk(account_id), keys.goal_sk(read.goal.id)),
            "SET #current = :current, #times_achieved = :times, last_achieved = :last, "
            "#status = :status, updated_at = :now",
            condition=" AND ".join(conditions),
            names={"#current": "current", "#status": "status", "#times_achieved": "times_achieved"},
            values=values,
        )

    @staticmethod
    def add_stats(tx: Transaction, account_id: int, stats: StoreStats, read_version: int | None) -> None:
        """The store stats as `version + 1`, if nobody wrote them since they were read."""
        version = read_version or 0
        item = to_item(stats, keys.store_pk(account_id), keys.STATS_ITEM, "stats", version=version + 1)
        if read_version is None:
            tx.put(item, condition="attribute_not_exists(PK)")
        elif not read_version:
            tx.put(item, condition="attribute_not_exists(version)")
        else:
            tx.put(item, condition="version = :v", values={":v": read_version})

    @staticmethod
    def add_spend(
        tx: Transaction, account_id: int, month: str, username_id: int, before: Decimal, total: Decimal
    ) -> None:
        """A player's spend this month, from what was read to `total`."""
        tx.update(
            keys.key(keys.account_pk(account_id), keys.spend_sk(month, username_id)),
            "SET #total = :total, entity = :e",
            condition="attribute_not_exists(#total) OR #total = :before",
            names={"#total": "total"},
            values={":total": total, ":before": before, ":e": "spend"},
        )


def coupon_code_key(account_id: int, code: str) -> dict[str, str]:
    return keys.key(keys.account_pk(account_id), keys.coupon_code_sk(code))
