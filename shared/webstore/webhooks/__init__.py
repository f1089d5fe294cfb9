"""Signed webhooks: the envelope and signature (`envelope`), the URL policy (`policy`), the HTTP
adapter (`http`), the delivery use case (`delivery`), retry backoff
(`retry`), `basket.abandoned` (`abandoned`) and the local stack's worker (`local`).
The table records live in `webstore.repo.webhooks`. See docs/webhooks.md.
"""

from webstore.repo.webhooks import DeliveryAttempt
from webstore.webhooks.delivery import (
    DeliveryFailed,
    DispatchResult,
    Outcome,
    WebhookDispatcher,
)

__all__ = [
    "DeliveryAttempt",
    "DeliveryFailed",
    "DispatchResult",
    "Outcome",
    "WebhookDispatcher",
]
