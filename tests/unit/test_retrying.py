"""retry_contended: a contended basket write is run again after a jittered pause (issue 10.16)."""

from __future__ import annotations

import random

import pytest

from webstore.errors import Conflict
from webstore.storefront.retrying import CAP_SECONDS, ROUNDS, Contended, retry_contended


def test_a_contended_call_is_run_again_until_it_lands() -> None:
    calls, pauses = [], []

    def flaky() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise Contended()
        return "saved"

    assert retry_contended(flaky, sleep=pauses.append, rng=random.Random(1)) == "saved"
    assert len(calls) == 3 and len(pauses) == 2
    assert all(0 <= p <= CAP_SECONDS for p in pauses)


def test_a_basket_contended_every_round_answers_409() -> None:
    calls = []

    def always() -> None:
        calls.append(1)
        raise Contended()

    with pytest.raises(Contended):
        retry_contended(always, sleep=lambda _: None)
    assert len(calls) == ROUNDS


def test_other_conflicts_are_not_retried() -> None:
    calls = []

    def complete() -> None:
        calls.append(1)
        raise Conflict("This basket is complete")

    with pytest.raises(Conflict):
        retry_contended(complete, sleep=lambda _: None)
    assert len(calls) == 1
