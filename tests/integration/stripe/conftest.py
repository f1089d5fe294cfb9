"""localstripe for the Stripe tests: one server per test module (its state is per test through
fresh objects; the adapter never lists)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.localstripe import localstripe


@pytest.fixture(scope="module")
def stripe_api() -> Iterator[str]:
    with localstripe() as base:
        yield base
