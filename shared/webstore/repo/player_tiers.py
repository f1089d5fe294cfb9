"""Players' tiers, as the storefront reads and changes them (fulfilment writes them).

Contract (docs/players.md): item PK `ACCOUNT#{a}`, SK `keys.tier_sk(id)`, GSI1PK
`keys.tiers_of_player(a, username_id)`, GSI1SK `keys.tier_category_gsi1sk(category_id)`; body = Tier.
"""

from __future__ import annotations

from webstore import keys
from webstore.db import GSI1, Item, Table, Transaction, from_item, to_item
from webstore.errors import Conflict
from webstore.players import Tier, TierStatus

ONGOING_STATUSES = tuple(status for status in TierStatus if status.ongoing)


def tier_key(account_id: int, tier_id: int) -> dict[str, str]:
    return keys.key(keys.account_pk(account_id), keys.tier_sk(tier_id))


def tier_item(account_id: int, tier: Tier) -> Item:
    """A tier as stored: under the account, and in GSI1 by player, sorted by category."""
    return to_item(
        tier,
        keys.account_pk(account_id),
        keys.tier_sk(tier.id),
        "tier",
        GSI1PK=keys.tiers_of_player(account_id, tier.username_id),
        GSI1SK=keys.tier_category_gsi1sk(tier.category_id),
    )


def tier_of_item(item: Item) -> Tier:
    return from_item(Tier, item)


def tier_slot_key(account_id: int, username_id: int, category_id: int) -> dict[str, str]:
    """The slot that keeps one tier id per (player, tiered category)."""
    return keys.key(keys.account_pk(account_id), keys.tier_slot_sk(username_id, category_id))


class PlayerTierRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    def of_player(self, account_id: int, username_id: int) -> list[Tier]:
        """Every tier of one player in one store: one GSI1 Query (a player has a few at most)."""
        tiers: list[Tier] = []
        start: Item | None = None
        while True:
            items, start = self.table.query(
                keys.tiers_of_player(account_id, username_id), index=GSI1, start_key=start
            )
            tiers.extend(tier_of_item(i) for i in items if i.get("entity") == "tier")
            if start is None:
                return tiers

    @staticmethod
    def add_slot(tx: Transaction, account_id: int, username_id: int, category_id: int, tier_id: int) -> None:
        """Claim the (player, category) slot for a new tier id (taken meanwhile: contention)."""
        tx.put(
            {
                **tier_slot_key(account_id, username_id, category_id),
                "entity": "tier_slot",
                "tier_id": tier_id,
            },
            condition="attribute_not_exists(PK)",
        )

    @staticmethod
    def add_tier(tx: Transaction, account_id: int, tier: Tier) -> None:
        """Write the tier whole (its slot, read or claimed in the same transaction, owns the id)."""
        tx.put(tier_item(account_id, tier))

    @staticmethod
    def add_change(tx: Transaction, account_id: int, before: Tier, after: Tier) -> None:
        """Write `after` (a renewal, an end), conditional on the tier still being what was read:
        the same subscription, package, status and pending downgrade (else contention)."""
        values: dict[str, object] = {
            ":ref": before.recurring_payment_reference,
            ":pkg": before.package_id,
            ":status": before.status_id,
        }
        if before.pending_downgrade_package_id is None:
            pending = "(attribute_not_exists(#pending) OR attribute_type(#pending, :null))"
            values[":null"] = "NULL"
        else:
            pending = "#pending = :pending"
            values[":pending"] = before.pending_downgrade_package_id
        tx.put(
            tier_item(account_id, after),
            condition="recurring_payment_reference = :ref AND package_id = :pkg AND status_id = :status"
            f" AND {pending}",
            names={"#pending": "pending_downgrade_package_id"},
            values=values,
        )

    def get_many(self, account_id: int, tier_ids: list[int]) -> dict[int, Tier]:
        """Tiers by id (one consistent BatchGetItem; none for no ids)."""
        if not tier_ids:
            return {}
        items = self.table.batch_get([tier_key(account_id, t) for t in tier_ids], consistent=True)
        tiers = [tier_of_item(i) for i in items if i.get("entity") == "tier"]
        return {tier.id: tier for tier in tiers}

    def get(self, account_id: int, tier_id: int) -> Tier | None:
        item = self.table.get(tier_key(account_id, tier_id), consistent=True)
        return tier_of_item(item) if item and item.get("entity") == "tier" else None

    def schedule_change(self, account_id: int, tier: Tier, package_id: int | None) -> None:
        """Record (or with None, cancel) a change to `package_id` at the next renewal.

        Conditional on the tier still being on the package it was read with and still ongoing,
        so a renewal or cancellation that lands meanwhile is never overwritten.
        """
        status = TierStatus.ACTIVE if package_id is None else TierStatus.PENDING_DOWNGRADE
        self.table.update(
            tier_key(account_id, tier.id),
            "SET #pending = :pending, #status = :status",
            condition="#pkg = :pkg AND #active = :true AND #status IN (:s1, :s2)",
            names={
                "#pending": "pending_downgrade_package_id",
                "#status": "status_id",
                "#pkg": "package_id",
                "#active": "active",
            },
            values={
                ":pending": package_id,
                ":status": status,
                ":pkg": tier.package_id,
                ":true": True,
                ":s1": ONGOING_STATUSES[0],
                ":s2": ONGOING_STATUSES[1],
            },
            fails=Conflict("The tier changed meanwhile; read it again"),
        )
