"""A webhook endpoint of type "Discord" (webstore.discord.embeds) through the webhook delivery
machinery against a loopback receiver standing in for Discord's channel webhook: purchases posted
as an embed (title, package lines, price, player), no handshake, retried and logged as any
delivery; a URL that is not a Discord webhook's refused by name."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from webstore.admin import webhooks as panel
from webstore.errors import Invalid
from webstore.events import DomainEvent
from webstore.services import Services
from webstore.webhooks import Outcome, WebhookDispatcher

from .conftest import Behaviour, Received, Receiver, attempt_history

ACCOUNT = 9
ACTOR = "staff:owner@example.com"
NOW = datetime(2030, 5, 1, 12, 0, tzinfo=UTC)
Factory = Callable[[Behaviour], Receiver]

pytestmark = pytest.mark.usefixtures("allow_private")


def purchase() -> DomainEvent:
    return DomainEvent(
        type="payment.completed",
        account_id=ACCOUNT,
        subject={
            "transaction_id": "tbx-41-abcd",
            "price_paid": {"amount": 14.99, "currency": "EUR"},
            "customer": {"username": {"id": "7", "username": "Steve"}},
            "products": [
                {"id": 1, "name": "VIP", "quantity": 1},
                {"id": 12, "name": "Pet", "quantity": 2},
            ],
        },
    )


def discord_like(statuses: list[int]) -> Behaviour:
    """Answers as Discord's webhook does: 204 and no body (after `statuses` in turn)."""
    queue = list(statuses)

    def behave(receiver: Receiver, request: Received) -> tuple[int, bytes]:
        return (queue.pop(0) if queue else 204), b""

    return behave


def test_a_purchase_is_posted_as_a_discord_embed_retried_and_logged(
    aws: Services, receiver_factory: Factory
) -> None:
    receiver = receiver_factory(discord_like([500]))
    url = receiver.url.replace("/hooks/tebex", "/api/webhooks/123456789/tok-en")
    issued = panel.add_endpoint(aws, ACCOUNT, url, [], actor=ACTOR, now=NOW, format="discord")
    [view] = panel.endpoints(aws, ACCOUNT)
    assert (view.format, view.events) == ("discord", ["payment.completed"])  # purchases by default
    assert view.url.endswith("/api/webhooks/123456789/…")  # the token is not shown

    dispatcher, event = WebhookDispatcher(aws), purchase()
    first = dispatcher.dispatch(event)
    assert [o.outcome for o in first.outcomes] == [Outcome.FAILED]  # Discord's 500: retried
    again = dispatcher.dispatch(event)  # the queue's redelivery
    assert [o.outcome for o in again.outcomes] == [Outcome.DELIVERED]
    assert [o.outcome for o in dispatcher.dispatch(event).outcomes] == [Outcome.ALREADY_DELIVERED]

    assert len(receiver.requests) == 2  # no handshake: the two attempts
    body = receiver.requests[-1].body
    assert set(body) == {"allowed_mentions", "embeds"} and body["allowed_mentions"] == {"parse": []}
    [embed] = body["embeds"]
    assert embed["title"] == "New purchase"
    assert embed["description"] == "1 x VIP\n2 x Pet"
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert fields == {"Price": "14.99 EUR", "Player": "Steve", "Transaction": "tbx-41-abcd"}
    history = attempt_history(aws, ACCOUNT)
    assert [(a.status_code, a.success) for a in history if a.endpoint_id == issued.endpoint_id] in (
        [(500, False), (204, True)],
        [(204, True), (500, False)],
    )
    assert (
        dispatcher.dispatch(DomainEvent(type="payment.refunded", account_id=ACCOUNT, subject={})).outcomes
        == []
    )


def test_a_url_that_is_not_a_discord_webhook_is_refused(aws: Services) -> None:
    with pytest.raises(Invalid) as refused:
        panel.add_endpoint(
            aws, ACCOUNT, "https://example.com/hook", [], actor=ACTOR, now=NOW, format="discord"
        )
    assert refused.value.field == "url" and "Discord webhook URL" in refused.value.detail
    with pytest.raises(Invalid):
        panel.add_endpoint(aws, ACCOUNT, "https://example.com/hook", [], actor=ACTOR, now=NOW, format="slack")
    assert panel.endpoints(aws, ACCOUNT) == []
