"""Fixtures of the subscription tests: the in-process bus's events, the demo store."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from webstore.events import DomainEvent
from webstore.services import local_bus


@pytest.fixture
def published() -> Iterator[list[DomainEvent]]:
    bus = local_bus()
    bus.published.clear()
    yield bus.published
    bus.published.clear()
