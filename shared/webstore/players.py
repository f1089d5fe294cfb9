"""Players as a store knows them, their tiers, and the store's running stats.

Written by fulfilment (payments), read by the storefront (tiered categories, sidebar) and
the operator interface (player lookup).
"""

from datetime import datetime
from decimal import Decimal
from enum import IntEnum
from typing import Any

from webstore.catalog import Model


class TierStatus(IntEnum):
    """A tier's status id (not shown in SPEC; decided in docs/decisions.md)."""

    ACTIVE = 1
    PENDING_DOWNGRADE = 2
    CANCELLED = 3
    EXPIRED = 4

    @property
    def description(self) -> str:
        return self.name.lower().replace("_", " ")

    @property
    def ongoing(self) -> bool:
        """Still the player's tier (a downgrade waits for the next renewal)."""
        return self in (TierStatus.ACTIVE, TierStatus.PENDING_DOWNGRADE)


# The descriptions by id, as the storefront shows them.
TIER_STATUSES = {status.value: status.description for status in TierStatus}
# The most recent payments the store keeps for the sidebar (which shows up to this many).
RECENT_PAYMENTS_KEPT = 10


class Tier(Model):
    """A player's current package in one tiered category (one per player and category)."""

    id: int
    username_id: int
    category_id: int
    package_id: int
    active: bool = True
    status_id: int = TierStatus.ACTIVE
    recurring_payment_reference: str = ""  # the transaction id that started it
    created_at: datetime
    next_payment_date: datetime | None = None
    pending_downgrade_package_id: int | None = None

    @property
    def ongoing(self) -> bool:
        """The player holds this tier now (active, or active until a downgrade applies)."""
        return self.active and self.status_id in (TierStatus.ACTIVE, TierStatus.PENDING_DOWNGRADE)


def ongoing_tiers_by_category(tiers: list[Tier]) -> dict[int, Tier]:
    """A player's current tier per category (the newest ongoing one, should there be several)."""
    current: dict[int, Tier] = {}
    for tier in sorted(tiers, key=lambda t: t.created_at):
        if tier.ongoing:
            current[tier.category_id] = tier
    return current


class RecentPayment(Model):
    username: str
    platform_id: str = ""  # the player's platform id (Minecraft: UUID without dashes)
    package: str
    amount: Decimal
    currency: str
    date: datetime


class StoreStats(Model):
    """The store partition's `4STATS` item: what the sidebar shows, kept up by fulfilment."""

    recent_payments: list[RecentPayment] = []  # newest first, RECENT_PAYMENTS_KEPT
    month: str = ""  # YYYY-MM the two figures below are for
    month_revenue: Decimal = Decimal(0)
    top_customer: dict[str, Any] | None = None  # {username, total} of `month`


class Player(Model):
    """One player as an account knows them: who they are and their running counters
    (payments, chargebacks, bans, and the total spent per currency)."""

    username_id: int
    username: str
    uuid: str | None = None
    email: str = ""
    payments: int = 0
    chargebacks: int = 0
    bans: int = 0
    totals: dict[str, Decimal] = {}  # currency -> amount

    @property
    def chargeback_rate(self) -> float:
        return round(self.chargebacks / self.payments, 4) if self.payments else 0.0
