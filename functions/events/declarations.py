"""What each event consumer is and may touch: its line of the route table (webstore's HTTP
routes' lines are `functions.declarations.Route`). Apart from the routes' so that an HTTP
function's cold start creates none of these classes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from functions.declarations import Access


class Trigger(StrEnum):
    """What invokes a function that is not an HTTP route."""

    # SQS messages fed by the bus rule (report batch item failures).
    WEBHOOK_QUEUE = "sqs:webhook-buffer"
    # The table's stream, filtered to TTL removals of baskets.
    TABLE_STREAM = "dynamodb-stream:basket-expiry"
    # A schedule (EventBridge Scheduler / rule): the due-work processor.
    SCHEDULE = "schedule"
    # SQS messages fed by a second bus rule: the e-mail consumer (its own retries and DLQ).
    MAIL_QUEUE = "sqs:mail-buffer"
    # SQS messages fed by a third bus rule: the Discord role consumer (its own retries and DLQ).
    DISCORD_QUEUE = "sqs:discord-buffer"


@dataclass(frozen=True)
class Consumer:
    """One line of the route table for a function that is not HTTP: an event consumer."""

    name: str  # e.g. dispatch_webhook: the function's name and construct id derive from it
    trigger: Trigger
    access: frozenset[Access]
    description: str
    memory_mb: int = 512
    timeout_seconds: int = 10

    @property
    def function_access(self) -> frozenset[Access]:
        return self.access
