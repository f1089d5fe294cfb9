"""Issue 22: the local stack's memory is bounded by its data. 30 paid checkouts (coupons, gift
cards, subscriptions) against the real `webstore serve`; after warm-up its RSS grows by less
than MAX_MB_PER_CHECKOUT per checkout (what the checkouts add to the table is a few KB; moto's
retained table copies added hundreds of MB each). The by-hand run is N = 1,000
(scripts/soak_local.py, figures in docs/testing.md)."""

from __future__ import annotations

import pytest

from scripts import soak_local

pytestmark = pytest.mark.e2e

MAX_MB_PER_CHECKOUT = 1.0


def test_memory_stays_flat_over_paid_checkouts() -> None:
    with soak_local.local_stack() as (creds, pid):
        result = soak_local.soak(creds, pid, checkouts=30, every=10, log=lambda _: None)
    assert result.paid == 30
    assert [n for n, _ in result.samples] == [0, 10, 20, 30]
    assert result.growth_per_checkout(warm_up=2) < MAX_MB_PER_CHECKOUT, result.samples
