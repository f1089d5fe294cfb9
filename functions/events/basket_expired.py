"""`basket.abandoned`: DynamoDB Streams (REMOVE records) → the publisher port.

Event source: the table's stream (OLD_IMAGE or NEW_AND_OLD_IMAGES), ideally filtered to REMOVE
records of entity `basket`; this code checks again and acts only on removals made by the TTL
process, for baskets that were not completed and whose store asked for the event. A failed
publish reports that record as a batch item failure (ReportBatchItemFailures); the event id is
derived from the basket ident, so a retry republishes the same id.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord

from functions.declarations import Access
from functions.events.declarations import Consumer, Trigger
from functions.observability import consumer_handler, logger
from webstore.services import get_services
from webstore.webhooks.abandoned import abandoned_event, is_ttl_removal

CONSUMER = Consumer(
    "basket_expired",
    Trigger.TABLE_STREAM,
    frozenset({Access.TABLE_READ, Access.BUS_PUT}),
    "Publishes basket.abandoned for baskets whose TTL expired",
    timeout_seconds=30,
)
processor = BatchProcessor(event_type=EventType.DynamoDBStreams, raise_on_entire_batch_failure=False)


def record_handler(record: DynamoDBRecord) -> None:
    if not is_ttl_removal(record.get("eventName"), record.user_identity) or record.dynamodb is None:
        return
    event = abandoned_event(record.dynamodb.old_image)
    if event is None:
        return
    get_services().publisher.publish(event)
    logger.info("basket abandoned", extra={"event_id": event.id, "account_id": event.account_id})


@consumer_handler
def handler(event: dict[str, Any], context: Any) -> PartialItemFailureResponse:
    return process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )
