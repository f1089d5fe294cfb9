"""The event side: bus, rule → SQS buffer → webhook dispatch, and the basket-expiry consumer.

Domain events reach the bus from the table's outbox (infra/aws/outbox.py: source `webstore`,
detail-type = webhook type); the basket-expiry consumer puts `basket.abandoned` itself. The rule
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

from functions.events.declarations import Trigger
from functions.routes import EventConsumer, consumers
from infra.aws.data import TTL_REMOVAL_OF_BASKET
from infra.aws.functions import Shared, WebstoreFunction, function_name
from webstore.discord.sync import ROLE_EVENT_TYPES
from webstore.events import SOURCE
from webstore.mail.messages import MAIL_EVENT_TYPES
from webstore.webhooks import retry

# The webhook retry budget (receipts before the dead-letter queue); the local stack uses it too.
MAX_RECEIVES = retry.MAX_RECEIVES
# The triggers this stack connects to a consumer (a declared consumer of another fails synth).
# The schedule's consumer is wired by infra.aws.schedule.Clock.
WIRED_TRIGGERS = frozenset(
    {Trigger.WEBHOOK_QUEUE, Trigger.MAIL_QUEUE, Trigger.DISCORD_QUEUE, Trigger.TABLE_STREAM, Trigger.SCHEDULE}
)


def consumer_of(trigger: Trigger) -> EventConsumer:
    """The one consumer the route table declares for `trigger`."""
    matching = [each for each in consumers() if each.consumer.trigger is trigger]
    if len(matching) != 1:
        raise ValueError(f"{len(matching)} consumers declared for {trigger.value}; the stack wires one")
    return matching[0]


def consumer_function(
    scope: Construct, id: str, shared: Shared, each: EventConsumer, *, service: str = "webstore-events"
) -> WebstoreFunction:
    """A consumer's function, exactly as the route table declares it."""
    consumer = each.consumer
    return WebstoreFunction(
        scope,
        id,
        shared=shared,
        handler=each.handler_path,
        name=function_name(shared.config, "events", each.module),
        service=service,
        access=consumer.function_access,
        memory_mb=consumer.memory_mb,
        timeout_seconds=consumer.timeout_seconds,
        description=consumer.description,
    )


def _queue(scope: Construct, id: str, **props: object) -> sqs.Queue:
    return sqs.Queue(scope, id, encryption=sqs.QueueEncryption.SQS_MANAGED, enforce_ssl=True, **props)  # type: ignore[arg-type]


class Events(Construct):
    def __init__(self, scope: Construct, id: str, *, shared: Shared, bus: events.EventBus) -> None:
        super().__init__(scope, id)
        self.bus = bus
        unwired = [each.module for each in consumers() if each.consumer.trigger not in WIRED_TRIGGERS]
        if unwired:
            raise ValueError(f"consumers declared without trigger wiring in this stack: {unwired}")
        dispatch = consumer_of(Trigger.WEBHOOK_QUEUE)
        # One dead-letter queue for the webhook, mail and Discord buffers and their rules: each
        # message keeps its source queue, so a redrive ("move messages" back to their source)
        # returns each to its own consumer, and one alarm watches all three (an alarm is billed
        # by the month: docs/deploy.md, "What an idle stage costs").
        self.dead_letters = _queue(self, "DeadLetters", retention_period=Duration.days(14))
        self.buffer = _queue(
            self,
            "Buffer",
            # AWS's advice for Lambda consumers: visibility at least 6x the function timeout.
            visibility_timeout=Duration.seconds(dispatch.consumer.timeout_seconds * 6),
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

        self.dispatch = consumer_function(self, "Dispatch", shared, dispatch)
        self.dispatch.target.add_event_source(
            sources.SqsEventSource(
                self.buffer,
                batch_size=10,
                max_batching_window=Duration.seconds(1),
                report_batch_item_failures=True,
            )
        )

        # E-mail: the same events through a queue of their own (a slow mail provider delays no
        # webhook, and each consumer retries only what it still owes), the same retry budget.
        mail = consumer_of(Trigger.MAIL_QUEUE)
        self.mail_buffer = _queue(
            self,
            "MailBuffer",
            visibility_timeout=Duration.seconds(mail.consumer.timeout_seconds * 6),
            retention_period=Duration.days(4),
            dead_letter_queue=sqs.DeadLetterQueue(queue=self.dead_letters, max_receive_count=MAX_RECEIVES),
        )
        self.mail_rule = events.Rule(
            self,
            "ToMail",
            event_bus=bus,
            description="The domain events players hear of by e-mail go to the mail buffer",
            event_pattern=events.EventPattern(source=[SOURCE], detail_type=list(MAIL_EVENT_TYPES)),
            targets=[
                targets.SqsQueue(self.mail_buffer, dead_letter_queue=self.dead_letters, retry_attempts=8)
            ],
        )
        self.send_mail = consumer_function(self, "SendMail", shared, mail)
        self.send_mail.target.add_event_source(
            sources.SqsEventSource(
                self.mail_buffer,
                batch_size=10,
                max_batching_window=Duration.seconds(1),
                report_batch_item_failures=True,
            )
        )

        # Discord roles: the events that change purchases and subscriptions through a queue of
        # their own (Discord's rate limits delay no webhook or e-mail), the same retry budget.
        discord = consumer_of(Trigger.DISCORD_QUEUE)
        self.discord_buffer = _queue(
            self,
            "DiscordBuffer",
            visibility_timeout=Duration.seconds(discord.consumer.timeout_seconds * 6),
            retention_period=Duration.days(4),
            dead_letter_queue=sqs.DeadLetterQueue(queue=self.dead_letters, max_receive_count=MAX_RECEIVES),
        )
        self.discord_rule = events.Rule(
            self,
            "ToDiscord",
            event_bus=bus,
            description="The domain events that change a player's Discord roles go to the Discord buffer",
            event_pattern=events.EventPattern(source=[SOURCE], detail_type=sorted(ROLE_EVENT_TYPES)),
            targets=[
                targets.SqsQueue(self.discord_buffer, dead_letter_queue=self.dead_letters, retry_attempts=8)
            ],
        )
        self.sync_discord_roles = consumer_function(self, "SyncDiscordRoles", shared, discord)
        self.sync_discord_roles.target.add_event_source(
            sources.SqsEventSource(
                self.discord_buffer,
                batch_size=10,
                max_batching_window=Duration.seconds(1),
                report_batch_item_failures=True,
            )
        )

        # Stream records the consumer (or the outbox pipe) gave up on, after retries and bisecting.
        self.stream_failures = _queue(self, "StreamFailures", retention_period=Duration.days(14))
        self.basket_expired = consumer_function(
            self, "BasketExpired", shared, consumer_of(Trigger.TABLE_STREAM)
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
