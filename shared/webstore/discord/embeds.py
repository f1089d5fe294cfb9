"""A webhook endpoint of type "Discord" (docs/discord.md): a Discord channel webhook URL that gets
the store's events as Discord messages with one embed, through the same webhook delivery (claims,
retries, the log). Pure: the message from the event.

A purchase (`payment.completed`) is an embed titled "New purchase" with one line per package
(quantity x name), the price paid and the player; other events a plain embed naming the type.
Discord answers 204 (no `?wait=true`) or 200: both are a delivery.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from webstore.errors import Invalid
from webstore.event_types import EventType
from webstore.events import DomainEvent

COLOUR = 0x57F287  # Discord's green
MAX_FIELD = 1024  # Discord's limit of an embed field's value
MAX_DESCRIPTION = 4096


def check_webhook_url(url: str) -> None:
    """A Discord channel webhook URL (`…/api/webhooks/<id>/<token>`, as Discord's channel
    settings copy it); anything else is refused, naming the problem."""
    path = urlsplit(url).path
    if "/api/webhooks/" not in path:
        raise Invalid(
            "url: a Discord webhook URL (Channel settings → Integrations → Webhooks → Copy Webhook URL)",
            field="url",
        )


def _money(price: dict[str, Any] | None) -> str:
    if not price:
        return ""
    return f"{float(price.get('amount') or 0):.2f} {price.get('currency') or ''}".strip()


def message(event: DomainEvent) -> dict[str, Any]:
    """The JSON Discord's webhook endpoint takes: no mentions allowed, one embed."""
    subject = event.subject
    embed: dict[str, Any] = {"color": COLOUR, "timestamp": event.date}
    if event.type == EventType.PAYMENT_COMPLETED:
        products = subject.get("products") or []
        lines = [f"{p.get('quantity') or 1} x {p.get('name') or p.get('id')}" for p in products]
        player = ((subject.get("customer") or {}).get("username") or {}).get("username") or "—"
        embed["title"] = "New purchase"
        embed["description"] = "\n".join(lines)[:MAX_DESCRIPTION] or "—"
        embed["fields"] = [
            {"name": "Price", "value": _money(subject.get("price_paid"))[:MAX_FIELD] or "—", "inline": True},
            {"name": "Player", "value": str(player)[:MAX_FIELD], "inline": True},
            {"name": "Transaction", "value": str(subject.get("transaction_id") or "—")[:MAX_FIELD]},
        ]
    else:
        embed["title"] = str(event.type)
        ident = subject.get("transaction_id") or subject.get("reference") or subject.get("ident")
        if ident:
            embed["description"] = str(ident)[:MAX_DESCRIPTION]
    return {"allowed_mentions": {"parse": []}, "embeds": [embed]}
