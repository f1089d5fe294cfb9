"""Claims on charging a tier upgrade (PATCH /tiers/{id} to a dearer package): one per tier,
target package and billing period, so concurrent or repeated requests charge once.

Contract: PK `ACCOUNT#{a}`, SK `keys.tier_upgrade_sk(tier, package, period)`; body = UpgradeClaim.
States: `charging` (a request holds it until `claimed_until`), `declined` (the charge was refused;
the next request takes attempt + 1, a new gateway idempotency key), `paid` (the money is in:
whoever comes next records the payment and moves the tier, never charges again), `refunded`
(paid, but the tier changed before the upgrade was recorded: the money went back; the next
request starts a new attempt). Every change is conditional on the state and attempt read.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum

from webstore import keys
from webstore.catalog import Model
from webstore.db import Table, from_item, to_item
from webstore.errors import Conflict

BUSY = "An upgrade of this tier is being charged; try again in a moment"


class UpgradeState(StrEnum):
    CHARGING = "charging"
    DECLINED = "declined"
    PAID = "paid"
    REFUNDED = "refunded"  # paid, but the tier changed before it was recorded: given back


class UpgradeClaim(Model):
    tier_id: int
    package_id: int
    period: str
    state: UpgradeState
    attempt: int  # the gateway idempotency key's last part: a new one only after a decline
    amount: Decimal
    claimed_until: datetime
    charge_reference: str = ""  # PAID: the processor's reference
    updated_at: datetime


def period_key(next_payment_date: datetime | None) -> str:
    """The billing period an upgrade is charged in, named by its end (compact UTC)."""
    return next_payment_date.strftime("%Y%m%dT%H%M%S") if next_payment_date else "none"


class TierUpgradeRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    @staticmethod
    def _key(account_id: int, tier_id: int, package_id: int, period: str) -> dict[str, str]:
        return keys.key(keys.account_pk(account_id), keys.tier_upgrade_sk(tier_id, package_id, period))

    def get(self, account_id: int, tier_id: int, package_id: int, period: str) -> UpgradeClaim | None:
        item = self.table.get(self._key(account_id, tier_id, package_id, period), consistent=True)
        return from_item(UpgradeClaim, item) if item else None

    def claim(
        self,
        account_id: int,
        read: UpgradeClaim | None,
        wanted: UpgradeClaim,
        now: datetime,
        lease: timedelta,
    ) -> UpgradeClaim:
        """Take the claim to charge: a first one, the attempt after a decline, or a charging one
        whose holder's lease ran out (the same attempt: its gateway key is the same, so a charge
        it may have made is answered again, not repeated). Conflict when someone holds it."""
        values: dict[str, object] | None = None
        if read is None:
            claim = wanted.model_copy(update={"attempt": 1})
            condition = "attribute_not_exists(PK)"
        elif read.state in (UpgradeState.DECLINED, UpgradeState.REFUNDED):
            claim = wanted.model_copy(update={"attempt": read.attempt + 1})
            condition = "#state = :state AND attempt = :attempt"
            values = {":state": read.state, ":attempt": read.attempt}
        elif read.state is UpgradeState.CHARGING and read.claimed_until <= now:
            claim = wanted.model_copy(update={"attempt": read.attempt})
            condition = "#state = :state AND attempt = :attempt AND claimed_until = :until"
            values = {":state": read.state, ":attempt": read.attempt, ":until": read.claimed_until}
        else:
            raise Conflict(BUSY, field="package_id")
        claim = claim.model_copy(
            update={"state": UpgradeState.CHARGING, "claimed_until": now + lease, "updated_at": now}
        )
        self.table.put(
            self._item(account_id, claim),
            condition=condition,
            names={"#state": "state"} if values else None,
            values=values,
            fails=Conflict(BUSY, field="package_id"),
        )
        return claim

    def settle(
        self,
        account_id: int,
        claim: UpgradeClaim,
        state: UpgradeState,
        reference: str,
        now: datetime,
        *,
        held: UpgradeState = UpgradeState.CHARGING,
    ) -> UpgradeClaim:
        """The charge's outcome (PAID, DECLINED; REFUNDED after PAID), conditional on the claim
        still being as `claim` and `held` say."""
        settled = claim.model_copy(update={"state": state, "charge_reference": reference, "updated_at": now})
        self.table.put(
            self._item(account_id, settled),
            condition="#state = :state AND attempt = :attempt",
            names={"#state": "state"},
            values={":state": held, ":attempt": claim.attempt},
            fails=Conflict(BUSY, field="package_id"),
        )
        return settled

    def _item(self, account_id: int, claim: UpgradeClaim) -> dict[str, object]:
        return to_item(
            claim,
            keys.account_pk(account_id),
            keys.tier_upgrade_sk(claim.tier_id, claim.package_id, claim.period),
            "tier_upgrade",
        )
