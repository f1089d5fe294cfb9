"""`basket.abandoned`: a basket the store asked about (`notify_abandoned`) expired unpaid. Pure.

The table's TTL deletes expired baskets; the deletion reaches the stream consumer as a REMOVE
record made by the DynamoDB service principal, with the basket as it was (OldImage). The subject
is built from that image alone, so no read is needed (the item is gone anyway):

    {ident, username, username_id, email, custom, created_at, expired_at, price: {amount, currency}}

(`price` only when the basket carried a total and a currency; absent values are null.)
The event id is derived from the basket ident, so a retried stream batch republishes the same
id and receivers and our delivery claims dedupe it.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from webstore.event_types import EventType
from webstore.events import DomainEvent
from webstore.repo import plain_json

TTL_PRINCIPAL = "dynamodb.amazonaws.com"
_NAMESPACE = uuid.UUID("5b0e3b7e-7d0c-4a53-9a43-6c2f0f7d9a11")


def is_ttl_removal(event_name: str | None, user_identity: Mapping[str, Any] | None) -> bool:
    """A REMOVE done by DynamoDB's TTL process (not by our code or an operator)."""
    identity = user_identity or {}
    return (
        event_name == "REMOVE"
        and identity.get("type") == "Service"
        and identity.get("principalId") == TTL_PRINCIPAL
    )


def abandoned_event(old_image: Mapping[str, Any]) -> DomainEvent | None:
    """The event for an expired basket image, or None when it is not one to report."""
    if old_image.get("entity") != "basket":
        return None
    if old_image.get("complete") or not old_image.get("notify_abandoned"):
        return None
    ident = old_image.get("ident")
    account_id = old_image.get("account_id")
    if not ident or account_id is None:
        return None
    expires_at = old_image.get("expires_at")
    subject: dict[str, Any] = {
        "ident": ident,
        "username": old_image.get("username"),
        "username_id": plain_json(old_image.get("username_id")),
        "email": old_image.get("email"),
        "custom": plain_json(old_image.get("custom")),
        "created_at": old_image.get("created_at"),
        "expired_at": (
            datetime.fromtimestamp(int(expires_at), UTC).isoformat(timespec="seconds")
            if expires_at is not None
            else None
        ),
    }
    if old_image.get("total_price") is not None and old_image.get("currency"):
        subject["price"] = {"amount": plain_json(old_image["total_price"]), "currency": old_image["currency"]}
    return DomainEvent(
        type=EventType.BASKET_ABANDONED,
        account_id=int(account_id),
        subject=subject,
        id=str(uuid.uuid5(_NAMESPACE, f"{EventType.BASKET_ABANDONED}:{ident}")),
    )
