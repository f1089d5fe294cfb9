"""Webhook dispatch: SQS (fed by the EventBridge rule) → signed POSTs to the account's endpoints.

Event source: the webhook buffer queue, with ReportBatchItemFailures. Each record is one
EventBridge event whose detail is `DomainEvent.detail()`. A record fails (and only that record is
retried) when some endpoint is still owed the event; before failing it, its visibility timeout is
set from its receive count (`webstore.webhooks.retry`), so retries back off. After the queue's
maxReceiveCount SQS moves it to the dead-letter queue. Endpoints that already got the event are
skipped on retry (delivery claims in the table). The logic is `WebhookDispatcher`.
"""

from __future__ import annotations

from typing import Any

import boto3
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.parser.models import EventBridgeModel, SqsRecordModel
from pydantic import BaseModel, Json

from functions.declarations import Access
from functions.events.declarations import Consumer, Trigger
from functions.observability import consumer_handler, metrics
from webstore.events import DomainEvent
from webstore.services import Services, get_services
from webstore.webhooks.delivery import DeliveryFailed, Outcome, WebhookDispatcher
from webstore.webhooks.retry import SqsVisibilityBackoff

CONSUMER = Consumer(
    "dispatch_webhook",
    Trigger.WEBHOOK_QUEUE,
    # Reads endpoints, opens their signing secrets, records each delivery attempt.
    frozenset({Access.TABLE_READ, Access.TABLE_WRITE, Access.WEBHOOK_KEY}),
    "Signs and POSTs each domain event to the account's webhook endpoints",
    # Each delivery attempt POSTs with a short timeout; 30 s covers a batch of slow receivers.
    timeout_seconds=30,
)


class WebhookDetail(BaseModel):
    id: str
    account_id: int
    date: str
    subject: dict[str, Any]
    endpoints: list[int] | None = None  # a redelivery's endpoints (webstore.admin.webhooks)


class WebstoreEventBridgeEvent(EventBridgeModel):
    # Real EventBridge always sends `account`; moto's envelope lacks it and we never read it.
    account: str | None = None  # type: ignore[assignment]
    detail: WebhookDetail


class WebhookSqsRecord(SqsRecordModel):
    body: Json[WebstoreEventBridgeEvent]


# An all-failed batch is reported record by record (not raised): same retry, clearer signal.
processor = BatchProcessor(
    event_type=EventType.SQS, model=WebhookSqsRecord, raise_on_entire_batch_failure=False
)
_cache: dict[str, Any] = {}


def _dispatcher() -> WebhookDispatcher:
    """One dispatcher (and HTTP/TLS setup) per warm container, rebuilt if services were reset."""
    services: Services = get_services()
    if _cache.get("services") is not services:
        _cache.update(
            services=services,
            dispatcher=WebhookDispatcher(services),
            backoff=SqsVisibilityBackoff(lambda: boto3.client("sqs", region_name=services.settings.region)),
        )
    dispatcher: WebhookDispatcher = _cache["dispatcher"]
    return dispatcher


def to_domain_event(message: WebstoreEventBridgeEvent) -> DomainEvent:
    detail = message.detail
    return DomainEvent(
        type=message.detail_type,
        account_id=detail.account_id,
        subject=detail.subject,
        id=detail.id,
        date=detail.date,
        endpoints=tuple(detail.endpoints) if detail.endpoints is not None else None,
    )


def _count(name: str, value: int) -> None:
    # Without a namespace (POWERTOOLS_METRICS_NAMESPACE) flushing would raise after the
    # deliveries were made, failing the whole batch; metrics are not worth that.
    if value and metrics.namespace:
        metrics.add_metric(name, MetricUnit.Count, value)


def record_handler(record: WebhookSqsRecord) -> None:
    event = to_domain_event(record.body)
    result = _dispatcher().dispatch(event)
    _count("WebhookDelivered", result.count(Outcome.DELIVERED))
    if result.retry_needed:
        _count("WebhookEventRetried", 1)
        backoff: SqsVisibilityBackoff = _cache["backoff"]
        backoff.postpone(
            record.eventSourceARN, record.receiptHandle, int(record.attributes.ApproximateReceiveCount)
        )
        raise DeliveryFailed(result)


@consumer_handler
def handler(event: dict[str, Any], context: Any) -> PartialItemFailureResponse:
    return process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )
