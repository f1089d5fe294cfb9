"""Issue 22: `kill -9` of the real `webstore serve` process during a stream of paid checkouts
loses no payment that was answered as paid, the money adds up, and every payment's
`payment.completed` reaches the store's webhook receiver, one event id per payment after the
receiver's dedupe (scripts/crash_local.py; the by-hand run makes 50 kills, this one a few).

A kill lands anywhere: between a payment's commit and the stream's publish, while its delivery
waits in the worker's queue or for a retry, mid-POST, before the claim is marked delivered. The
outbox item stays until the delivery is done (webstore.local_stream), so the next start's sweep
publishes it again and the delivery claim (in the table) keeps it to one event id."""

from __future__ import annotations

import pytest

from scripts import crash_local

pytestmark = pytest.mark.e2e


def test_kills_during_paid_checkouts_lose_nothing_answered_and_no_delivery() -> None:
    books = crash_local.run(kills=3, seed=7, min_seconds=1.0, max_seconds=5.0, log=lambda _: None)
    assert books.kills == 3
    assert books.paid  # the stream did pay between the kills (else the check would be empty)
    assert not books.unanswered
    assert books.delivered == len(books.paid)  # the check saw every payment's event arrive
