"""Fixtures of the Discord tests: the loopback stand-in with one guild, the bus's events."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.discord_standin import StandInDiscord, running
from webstore.events import DomainEvent
from webstore.services import local_bus

GUILD = "900000000000000001"
VIP_ROLE, MVP_ROLE, SUPPORTER, BOT_ROLE, ADMIN = "910", "911", "912", "950", "999"
STEVE_DISCORD = "700000000000000001"


@pytest.fixture
def discord() -> Iterator[StandInDiscord]:
    standin = StandInDiscord()
    standin.add_guild(
        GUILD,
        "Craft",
        {
            VIP_ROLE: ("VIP", 2),
            MVP_ROLE: ("MVP", 3),
            SUPPORTER: ("Supporter", 1),
            BOT_ROLE: ("Store bot", 5),
            ADMIN: ("Admin", 9),
        },
        BOT_ROLE,
    )
    standin.add_user(STEVE_DISCORD, "steve")
    with running(standin) as served:
        yield served


@pytest.fixture
def published() -> Iterator[list[DomainEvent]]:
    bus = local_bus()
    bus.published.clear()
    yield bus.published
    bus.published.clear()
