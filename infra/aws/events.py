"""The event side: bus, rule → SQS buffer → webhook dispatch, and the basket-expiry consumer.

Use cases put domain events on the bus (source `webstore`, detail-type = webhook type). The rule
buffers them in SQS so a slow or failing webhook receiver only delays its own messages: the
dispatch function reports per-message failures, SQS retries them, and after MAX_RECEIVES the
message rests in the dead-letter queue (which also takes events the rule could not deliver).
"""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as sources
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from functions.runtime import Access
from infra.aws.data import TTL_REMOVAL_OF_BASKET
from infra.aws.functions import Shared, WebstoreFunction, function_name
from webstore.events import SOURCE
from webstore.webhooks import retry

DISPATCH_HANDLER = "functions.events.dispatch_webhook.handler"
BASKET_EXPIRED_HANDLER = "functions.events.basket_expired.handler"
# The webhook retry budget (receipts before the dead-letter queue); the local stack uses it too.
MAX_RECEIVES = retry.MAX_RECEIVES
# Each delivery attempt POSTs with a short timeout; 30 s covers a batch of slow receivers.
DISPATCH_TIMEOUT = Duration.seconds(30)


def _queue(scope: Construct, id: str, **props: object) -> sqs.Queue:
    return sqs.Queue(scope, id, encryption=sqs.QueueEncryption.SQS_MANAGED, enforce_ssl=True, **props)  # type: ignore[arg-type]


class Events(Construct):
    def __init__(self, scope: Construct, id: str, *, shared: Shared, bus: events.EventBus) -> None:
        super().__init__(scope, id)
        config = shared.config
        self.bus = bus
        self.dead_letters = _queue(self, "DeadLetters", retention_period=Duration.days(14))
        self.buffer = _queue(
            self,
            "Buffer",
            # AWS's advice for Lambda consumers: visibility at least 6x the function timeout.
            visibility_timeout=Duration.seconds(DISPATCH_TIMEOUT.to_seconds() * 6),
            retention_period=Duration.days(4),
            dead_letter_queue=sqs.DeadLetterQueue(queue=self.dead_letters, max_receive_count=MAX_RECEIVES),
        )
        self.rule = events.Rule(
            self,
            "ToWebhooks",
            event_bus=bus,
            description="Every domain event goes to the webhook buffer",
            event_pattern=events.EventPattern(source=[SOURCE]),
            targets=[targets.SqsQueue(self.buffer, dead_letter_queue=self.dead_letters, retry_attempts=8)],
        )

        self.dispatch = WebstoreFunction(
            self,
            "Dispatch",
            shared=shared,
            handler=DISPATCH_HANDLER,
            name=function_name(config, "events", "dispatch_webhook"),
            service="webstore-events",
            # Reads endpoints, opens their signing secrets, records each delivery attempt.
            access={Access.TABLE_READ, Access.TABLE_WRITE, Access.WEBHOOK_KEY},
            timeout_seconds=int(DISPATCH_TIMEOUT.to_seconds()),
            description="Signs and POSTs each domain event to the account's webhook endpoints",
        )
        self.dispatch.target.add_event_source(
            sources.SqsEventSource(
                self.buffer,
                batch_size=10,
                max_batching_window=Duration.seconds(1),
                report_batch_item_failures=True,
            )
        )

        # Stream records the consumer gave up on (after retries and bisecting) are kept here.
        self.stream_failures = _queue(self, "StreamFailures", retention_period=Duration.days(14))
        self.basket_expired = WebstoreFunction(
            self,
            "BasketExpired",
            shared=shared,
            handler=BASKET_EXPIRED_HANDLER,
            name=function_name(config, "events", "basket_expired"),
            service="webstore-events",
            access={Access.TABLE_READ, Access.BUS_PUT},
            timeout_seconds=30,
            description="Publishes basket.abandoned for baskets whose TTL expired",
        )
        self.basket_expired.target.add_event_source(
            sources.DynamoEventSource(
                shared.table,
                starting_position=lambda_.StartingPosition.LATEST,
                filters=[lambda_.FilterCriteria.filter(TTL_REMOVAL_OF_BASKET)],
                batch_size=100,
                max_batching_window=Duration.seconds(5),
                bisect_batch_on_error=True,
                retry_attempts=5,
                report_batch_item_failures=True,
                on_failure=sources.SqsDlq(self.stream_failures),
            )
        )
