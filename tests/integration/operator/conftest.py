"""Fixtures of the operator interface tests: the clock."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.support.clock import Clock
from tests.support.demo import DemoStore
from webstore.services import get_services


@pytest.fixture
def clock(demo: DemoStore) -> Clock:
    """The services clock, frozen at a known instant; `clock.advance(s)` moves it."""
    controlled = Clock(datetime(2026, 3, 15, 12, 0, 0, tzinfo=UTC))
    get_services().clock = controlled
    return controlled
