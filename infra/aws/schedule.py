"""The clock: an EventBridge schedule rule invokes the subscription processor every minute.

The processor's function is the route table's `Trigger.SCHEDULE` consumer, with exactly its
declared access (table read/write, bus put). The rule invokes it asynchronously through the
function's resource policy (events.amazonaws.com, this rule only): no role to hold. A rule, not
EventBridge Scheduler: Scheduler needs a role whose generated policy grants every version of the
function (`<arn>:*`), a wildcard for nothing. Failures, and where they go:

- an invocation EventBridge cannot deliver (throttled, the function missing) is retried for at
  most `MAX_EVENT_AGE` and then rests in `dead_letters` (alarmed: ScheduleDeadLettersDepth);
- a run that fails (crash, timeout) is not retried by Lambda (`retry_attempts=0`): the next
  minute's run is the retry, and every item it did not finish is still in the table, due. The
  Errors alarm counts such runs;
- an item that keeps failing is released and retried by the next run; after
  `webstore.subscriptions.dead_letters.MAX_ATTEMPTS` claims it is parked in the table's
  dead-letter partition (ScheduleParked alarm, on the `ScheduleDeadLetters` metric each run
  reports); `redrive` puts it back;
- anything late (a backlog not keeping up, or no run at all): the ScheduleOverdue alarm (the
  oldest due item more than 10 minutes late, or no run reporting).
"""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from functions.events.declarations import Trigger
from infra.aws.events import consumer_function, consumer_of
from infra.aws.functions import METRICS_NAMESPACE, Shared

RATE = Duration.minutes(1)
# A tick older than this is dropped: the next one comes a minute later.
MAX_EVENT_AGE = Duration.minutes(1)
SERVICE = "webstore-clock"
OVERDUE_METRIC = "ScheduleOverdueSeconds"
PARKED_METRIC = "ScheduleDeadLetters"
# Issue 12: items overdue by more than 10 minutes raise an alarm.
OVERDUE_ALARM_SECONDS = 10 * 60


class Clock(Construct):
    def __init__(self, scope: Construct, id: str, *, shared: Shared) -> None:
        super().__init__(scope, id)
        self.processor = consumer_function(
            self, "Processor", shared, consumer_of(Trigger.SCHEDULE), service=SERVICE
        )
        # The next minute's run retries a failed one; Lambda's own retries would overlap it.
        self.processor.function.configure_async_invoke(retry_attempts=0, max_event_age=MAX_EVENT_AGE)
        self.dead_letters = sqs.Queue(
            self,
            "DeadLetters",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            retention_period=Duration.days(14),
        )
        self.rule = events.Rule(
            self,
            "EveryMinute",
            schedule=events.Schedule.rate(RATE),
            description="Runs the subscription processor over what is due",
            targets=[
                targets.LambdaFunction(
                    self.processor.target,
                    dead_letter_queue=self.dead_letters,
                    max_event_age=MAX_EVENT_AGE,
                    retry_attempts=2,
                )
            ],
        )

    def overdue_metric(self) -> cloudwatch.Metric:
        """The age of the oldest due item after each run (Powertools EMF, `service` dimension)."""
        return self._metric(OVERDUE_METRIC)

    def parked_metric(self) -> cloudwatch.Metric:
        """How many items rest in the dead-letter partition, after each run."""
        return self._metric(PARKED_METRIC)

    @staticmethod
    def _metric(name: str) -> cloudwatch.Metric:
        return cloudwatch.Metric(
            namespace=METRICS_NAMESPACE,
            metric_name=name,
            dimensions_map={"service": SERVICE},
            statistic="Maximum",
            period=Duration.minutes(5),
        )
