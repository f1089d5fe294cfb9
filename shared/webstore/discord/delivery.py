"""Role deliveries as queued work: the Discord consumer's use case (SQS in AWS, the local bus's
worker locally), with the webhooks' retry schedule and dead-letter queue.

One domain event is one message. Its run recomputes each affected player's roles and sends what
differs (webstore.discord.sync); while a call is owed (rate limited past the adapter's wait, a
5xx, no answer) the message fails and is delivered again later, backing off as a webhook does;
after the retry budget it rests in the dead-letter queue, and the log shows the role as `retry`
until the daily reconciliation or the panel's "Retry now" applies it. A refused call (the role
hierarchy's 403) does not fail the message: retrying cannot fix it; the log shows it to the owner.
"""

from __future__ import annotations

from collections.abc import Callable

from webstore.discord import DiscordApi
from webstore.discord.app import store_api
from webstore.discord.sync import ROLE_EVENT_TYPES, SyncResult, on_event
from webstore.events import DomainEvent
from webstore.services import Services


class DiscordDispatcher:
    def __init__(
        self, services: Services, *, api_for: Callable[[int], DiscordApi | None] | None = None
    ) -> None:
        self.services = services
        self._api_for = api_for or (lambda account_id: store_api(services, account_id))

    def dispatch(self, event: DomainEvent) -> SyncResult:
        if event.type not in ROLE_EVENT_TYPES:
            return SyncResult()
        return on_event(self.services, self._api_for, event, self.services.now())
