"""E-mail to players: SQS (fed by its own EventBridge rule) → the messages each event means.

Event source: the mail buffer queue, with ReportBatchItemFailures. Each record is one
EventBridge event: a domain event (detail `DomainEvent.detail()`), or SES's report of a
delivery, bounce or complaint (`webstore.mail.feedback`: the log updated, the address
suppressed). A record fails (and only that record is
retried, backing off like webhook deliveries) while one of its messages is owed; after the
queue's maxReceiveCount it rests in the mail dead-letter queue. Messages already sent are skipped
on retry (claims in the table). The logic is `webstore.mail.delivery.MailDispatcher`.
"""

from __future__ import annotations

import json
from typing import Any

import boto3
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.parser.models import SqsRecordModel

from functions.declarations import Access
from functions.events.declarations import Consumer, Trigger
from functions.events.dispatch_webhook import WebstoreEventBridgeEvent, to_domain_event
from functions.observability import consumer_handler, logger, metrics
from webstore.mail.delivery import MailDispatcher, MailFailed, Outcome
from webstore.mail.feedback import is_feedback, record_feedback
from webstore.services import Services, get_services
from webstore.webhooks.retry import SqsVisibilityBackoff

CONSUMER = Consumer(
    "send_mail",
    Trigger.MAIL_QUEUE,
    # Reads the store, its mail settings and the subscription; claims and settles each message;
    # signs the manage link (the stage key); sends through SES.
    frozenset({Access.TABLE_READ, Access.TABLE_WRITE, Access.WEBHOOK_KEY, Access.MAIL_SEND}),
    "Sends the e-mails each domain event means to the player (receipts, renewal notices)",
    timeout_seconds=30,
)

# A record is a domain event (its detail `DomainEvent.detail()`) or SES's report on a message.
processor = BatchProcessor(
    event_type=EventType.SQS, model=SqsRecordModel, raise_on_entire_batch_failure=False
)
_cache: dict[str, Any] = {}


def _dispatcher() -> MailDispatcher:
    services: Services = get_services()
    if _cache.get("services") is not services:
        _cache.update(
            services=services,
            dispatcher=MailDispatcher(services),
            backoff=SqsVisibilityBackoff(lambda: boto3.client("sqs", region_name=services.settings.region)),
        )
    dispatcher: MailDispatcher = _cache["dispatcher"]
    return dispatcher


def record_handler(record: SqsRecordModel) -> None:
    body = json.loads(str(record.body))
    if is_feedback(str(body.get("source", "")), str(body.get("detail-type", ""))):
        services = get_services()  # SES's report of a message sent earlier (webstore.mail.feedback)
        done = record_feedback(services, body["detail-type"], body.get("detail") or {}, services.now())
        logger.info("mail feedback", extra={"detail_type": body["detail-type"], "done": done})
        return
    event = WebstoreEventBridgeEvent.model_validate(body)
    result = _dispatcher().dispatch(to_domain_event(event))
    sent = sum(1 for o in result.outcomes.values() if o is Outcome.SENT)
    if sent and metrics.namespace:
        metrics.add_metric("MailSent", MetricUnit.Count, sent)
    if result.retry_needed:
        backoff: SqsVisibilityBackoff = _cache["backoff"]
        backoff.postpone(
            record.eventSourceARN, record.receiptHandle, int(record.attributes.ApproximateReceiveCount)
        )
        raise MailFailed(result)


@consumer_handler
def handler(event: dict[str, Any], context: Any) -> PartialItemFailureResponse:
    return process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )
