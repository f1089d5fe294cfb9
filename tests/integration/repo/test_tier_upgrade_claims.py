"""The tier upgrade claim (repo.tier_upgrades): each method and its conditions (moto)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from webstore.db import Table
from webstore.errors import Conflict
from webstore.repo.tier_upgrades import TierUpgradeRepository, UpgradeClaim, UpgradeState, period_key

A = 3
NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
LEASE = timedelta(seconds=60)
PERIOD = period_key(datetime(2026, 3, 31, 12, tzinfo=UTC))


def wanted() -> UpgradeClaim:
    return UpgradeClaim(
        tier_id=7,
        package_id=2,
        period=PERIOD,
        state=UpgradeState.CHARGING,
        attempt=1,
        amount=Decimal("2.50"),
        claimed_until=NOW,
        updated_at=NOW,
    )


def test_the_first_claim_is_attempt_one_and_a_held_claim_refuses_others(table: Table) -> None:
    claims = TierUpgradeRepository(table)
    assert PERIOD == "20260331T120000"
    first = claims.claim(A, None, wanted(), NOW, LEASE)
    assert (first.state, first.attempt, first.claimed_until) == (UpgradeState.CHARGING, 1, NOW + LEASE)
    assert claims.get(A, 7, 2, PERIOD) == first
    with pytest.raises(Conflict):  # read as absent meanwhile: the put-if-absent refuses
        claims.claim(A, None, wanted(), NOW, LEASE)
    with pytest.raises(Conflict):  # read as held
        claims.claim(A, first, wanted(), NOW + timedelta(seconds=30), LEASE)


def test_a_lapsed_claim_is_taken_over_with_the_same_attempt_once(table: Table) -> None:
    claims = TierUpgradeRepository(table)
    first = claims.claim(A, None, wanted(), NOW, LEASE)
    later = NOW + LEASE + timedelta(seconds=1)
    taken = claims.claim(A, first, wanted(), later, LEASE)
    assert (taken.attempt, taken.claimed_until) == (1, later + LEASE)  # same gateway key
    with pytest.raises(Conflict):  # a second taker read the same lapsed claim
        claims.claim(A, first, wanted(), later, LEASE)


def test_settle_needs_the_claim_as_held_and_a_decline_or_refund_allows_the_next_attempt(table: Table) -> None:
    claims = TierUpgradeRepository(table)
    first = claims.claim(A, None, wanted(), NOW, LEASE)
    declined = claims.settle(A, first, UpgradeState.DECLINED, "", NOW)
    with pytest.raises(Conflict):  # no longer charging
        claims.settle(A, first, UpgradeState.PAID, "ref", NOW)
    second = claims.claim(A, declined, wanted(), NOW, LEASE)
    assert second.attempt == 2
    paid = claims.settle(A, second, UpgradeState.PAID, "sandbox-x", NOW)
    assert claims.get(A, 7, 2, PERIOD) == paid
    with pytest.raises(Conflict):  # a paid claim is never charged again
        claims.claim(A, paid, wanted(), NOW + timedelta(hours=1), LEASE)
    refunded = claims.settle(A, paid, UpgradeState.REFUNDED, "sandbox-x", NOW, held=UpgradeState.PAID)
    assert claims.claim(A, refunded, wanted(), NOW, LEASE).attempt == 3
