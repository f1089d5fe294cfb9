"""Issue 22: `kill -9` of the real `webstore serve` process during a stream of paid checkouts
loses no payment that was answered as paid, and the money adds up (scripts/crash_local.py; the
by-hand run makes 50 kills, this one a few)."""

from __future__ import annotations

import pytest

from scripts import crash_local

pytestmark = pytest.mark.e2e


def test_kills_during_paid_checkouts_lose_nothing_answered() -> None:
    books = crash_local.run(kills=3, seed=7, min_seconds=1.0, max_seconds=5.0, log=lambda _: None)
    assert books.kills == 3
    assert books.paid  # the stream did pay between the kills (else the check would be empty)
    assert not books.unanswered
