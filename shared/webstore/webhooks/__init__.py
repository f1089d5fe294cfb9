"""Signed webhooks: the envelope and signature (`envelope`), the URL policy (`policy`), the HTTP
adapter (`http`), the table records (`store`), the delivery use case (`delivery`), retry backoff
(`retry`), `basket.abandoned` (`abandoned`) and the local stack's worker (`local`).
See docs/webhooks.md.
"""

from webstore.webhooks.delivery import (
    DeliveryFailed,
    DispatchResult,
    Outcome,
    WebhookDispatcher,
    delivery_history,
)
from webstore.webhooks.store import DeliveryAttempt

__all__ = [
    "DeliveryAttempt",
    "DeliveryFailed",
    "DispatchResult",
    "Outcome",
    "WebhookDispatcher",
    "delivery_history",
]
