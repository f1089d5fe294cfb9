"""The local stack's e-mail: the same `MailDispatcher`, off the request path.

`subscribe(bus, services)` (called by `webstore serve` and `webstore clock run` on the local
stack) hooks a background worker to the in-process bus, with the webhook worker's retry schedule
(webstore.webhooks.local). Where the messages go is the settings' transport: `.eml` files in the
state directory by default, an SMTP relay with `webstore serve --smtp host:port`.
"""

from __future__ import annotations

from collections.abc import Sequence

from webstore.events import InProcessBus
from webstore.mail import MailSender
from webstore.mail.delivery import MailDispatcher
from webstore.services import Services
from webstore.webhooks.local import LocalDispatcher, acknowledging, fixed_schedule
from webstore.webhooks.retry import next_retry_delay


def subscribe(
    bus: InProcessBus,
    services: Services,
    *,
    sender: MailSender | None = None,
    retry_delays: Sequence[float] | None = None,
) -> LocalDispatcher:
    """Send the local bus's events' e-mails in the background; returns the worker. Like the
    webhook worker it holds each event's outbox item until it is done with the event (sent,
    nothing to send, or given up), so a stop before a message is sent leaves the event for the
    next start's sweep, and the message's claim keeps it to one e-mail."""
    worker = LocalDispatcher(
        MailDispatcher(services, sender=sender),
        label="mail",
        schedule=next_retry_delay if retry_delays is None else fixed_schedule(retry_delays),
        on_done=acknowledging(bus, services),
    )
    worker.start()
    bus.subscribe(worker.submit)
    return worker
