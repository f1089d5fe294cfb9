"""Discord roles that follow the purchase: SQS (fed by its own EventBridge rule) → the roles each
event changes.

Event source: the Discord buffer queue, with ReportBatchItemFailures. Each record is one
EventBridge event whose detail is `DomainEvent.detail()`. A record fails (and only that record is
retried, backing off like webhook deliveries) while a grant or revocation is owed (Discord rate
limited it beyond the adapter's wait, answered 5xx, or did not answer); after the queue's
maxReceiveCount it rests in the Discord dead-letter queue. A retry recomputes the player's roles
from committed state, so nothing is sent twice. The logic is
`webstore.discord.delivery.DiscordDispatcher`.
"""

from __future__ import annotations

from typing import Any

import boto3
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse

from functions.declarations import Access
from functions.events.declarations import Consumer, Trigger
from functions.events.dispatch_webhook import WebhookSqsRecord, to_domain_event
from functions.observability import consumer_handler, metrics
from webstore.discord.delivery import DiscordDispatcher
from webstore.discord.sync import DiscordRetryNeeded
from webstore.services import Services, get_services
from webstore.webhooks.retry import SqsVisibilityBackoff

CONSUMER = Consumer(
    "sync_discord_roles",
    Trigger.DISCORD_QUEUE,
    # Reads the rules, the player's link, payments and subscriptions; writes the applied roles
    # and the delivery log; opens the sealed bot token and access tokens (the stage key).
    frozenset({Access.TABLE_READ, Access.TABLE_WRITE, Access.WEBHOOK_KEY}),
    "Grants and revokes the Discord roles each domain event changes (docs/discord.md)",
    timeout_seconds=30,
)

processor = BatchProcessor(
    event_type=EventType.SQS, model=WebhookSqsRecord, raise_on_entire_batch_failure=False
)
_cache: dict[str, Any] = {}


def _dispatcher() -> DiscordDispatcher:
    services: Services = get_services()
    if _cache.get("services") is not services:
        _cache.update(
            services=services,
            dispatcher=DiscordDispatcher(services),
            backoff=SqsVisibilityBackoff(lambda: boto3.client("sqs", region_name=services.settings.region)),
        )
    dispatcher: DiscordDispatcher = _cache["dispatcher"]
    return dispatcher


def record_handler(record: WebhookSqsRecord) -> None:
    result = _dispatcher().dispatch(to_domain_event(record.body))
    if result.calls and metrics.namespace:
        metrics.add_metric("DiscordRoleCalls", MetricUnit.Count, result.calls)
    if result.retry_needed:
        backoff: SqsVisibilityBackoff = _cache["backoff"]
        backoff.postpone(
            record.eventSourceARN, record.receiptHandle, int(record.attributes.ApproximateReceiveCount)
        )
        raise DiscordRetryNeeded(result)


@consumer_handler
def handler(event: dict[str, Any], context: Any) -> PartialItemFailureResponse:
    return process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )
