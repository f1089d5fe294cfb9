"""Every webhook type the store publishes (COMPAT.md: types receivers know), in one enum.

Publishers pass a member as `DomainEvent.type`; being a `StrEnum`, it is the wire string itself.
"""

from __future__ import annotations

from enum import StrEnum


class EventType(StrEnum):
    BASKET_AUTHENTICATED = "basket.authenticated"
    BASKET_ABANDONED = "basket.abandoned"
    PAYMENT_COMPLETED = "payment.completed"
    PAYMENT_DECLINED = "payment.declined"
    PAYMENT_REFUNDED = "payment.refunded"
    PAYMENT_DISPUTE_OPENED = "payment.dispute.opened"
    PAYMENT_DISPUTE_WON = "payment.dispute.won"
    PAYMENT_DISPUTE_LOST = "payment.dispute.lost"
    PAYMENT_DISPUTE_CLOSED = "payment.dispute.closed"
    RECURRING_STARTED = "recurring-payment.started"
    RECURRING_RENEWED = "recurring-payment.renewed"
    RECURRING_ENDED = "recurring-payment.ended"
    RECURRING_STATUS_CHANGED = "recurring-payment.status-changed"
    RECURRING_CANCELLATION_REQUESTED = "recurring-payment.cancellation.requested"
    RECURRING_CANCELLATION_ABORTED = "recurring-payment.cancellation.aborted"
    VALIDATION = "validation.webhook"  # the endpoint handshake, never published on the bus


# Ours, not a webhook type (no endpoint receives it: its events name no endpoint): the clock's
# "your subscription renews on …" for the mail consumer (webstore.subscriptions.notices).
RENEWAL_UPCOMING = "recurring-payment.renewal-upcoming"

# Ours too: a timed one-off package ran out (the clock's expiry item), for the Discord consumer
# (webstore.discord.sync): its roles go at the expiry, not at the next reconciliation.
TIMED_PACKAGE_EXPIRED = "package.timed-expired"

# Ours, not a webhook type: an owner issued a gift card for an e-mail address (the operator
# interface's `email`); the mail consumer sends "you received a gift card" (webstore.mail).
GIFT_CARD_DELIVERY = "gift-card.delivery"

# Ours, not a webhook type: "Find my subscriptions" matched an address; the mail consumer sends
# its sign-in link (webstore.subscriptions.find_by_email).
SIGN_IN_REQUESTED = "subscriptions.sign-in.requested"
