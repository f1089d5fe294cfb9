"""The local stack's Discord deliveries: the same `DiscordDispatcher`, off the request path.

`subscribe(bus, services)` (called by `webstore serve` and `webstore clock run`) hooks a
background worker to the in-process bus with the webhook worker's retry schedule
(webstore.webhooks.local). Discord is the settings' `discord_api_url`: the loopback stand-in
(tests/support/discord_standin.py) for local runs, Discord itself when a store connects a real
application.
"""

from __future__ import annotations

from collections.abc import Sequence

from webstore.discord.delivery import DiscordDispatcher
from webstore.events import InProcessBus
from webstore.services import Services
from webstore.webhooks.local import LocalDispatcher, fixed_schedule
from webstore.webhooks.retry import next_retry_delay


def subscribe(
    bus: InProcessBus, services: Services, *, retry_delays: Sequence[float] | None = None
) -> LocalDispatcher:
    """Apply the local bus's events' Discord roles in the background; returns the worker."""
    worker = LocalDispatcher(
        DiscordDispatcher(services),
        label="discord",
        schedule=next_retry_delay if retry_delays is None else fixed_schedule(retry_delays),
    )
    worker.start()
    bus.subscribe(worker.submit)
    return worker
