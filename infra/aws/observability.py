"""Alarms (to one SNS topic) and, with `-c dashboard=true`, a dashboard for the whole service.

Alarm choices (docs/deploy.md, "Alarms"): a handful, each watching what matters at the level it
is paid for, so an idle stage's alarms cost about a dollar: each API's server errors (an
endpoint's failure, or its function throttled); Lambda errors of the whole account and region
(one alarm, not two per function: the dashboard's per-function graphs say which; a throttled
consumer retries and ends in a dead-letter queue or an old buffer; the dispatch function failing
whole batches is a Lambda error); dead letters on each queue; webhook deliveries stuck retrying
in the buffer; the clock's overdue and parked work. Every alarm watches one metric (CloudWatch
bills an alarm per metric it reads).
"""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs
from aws_cdk import aws_xray as xray
from constructs import Construct

from infra.aws.config import StageConfig

PERIOD = Duration.minutes(5)
# Server errors (5xx) an API may answer in 10 minutes before it pages: a broken deploy or a
# failing dependency answers many; a single crash does not wake anybody.
SERVER_ERRORS = 5
SERVER_ERROR_PERIOD = Duration.minutes(10)
# Lambda errors (crashes, timeouts, out of memory) of every function in 5 minutes.
FUNCTION_ERRORS = 3
# Webhooks retry through SQS; an oldest message older than this means a stuck pipeline.
BUFFER_AGE_SECONDS = 15 * 60
# Issue 12: subscription schedule items overdue by more than 10 minutes.
SCHEDULE_OVERDUE_SECONDS = 10 * 60


class TraceSampling(Construct):
    """The stage's X-Ray sampling rule: its functions (`webstore-<stage>-*`) sampled at the stage's
    reservoir and rate instead of X-Ray's default of one a second and 5% of the rest, which would
    trace nearly every request of a small shop (docs/deploy.md, "Tracing")."""

    # Before X-Ray's Default rule (priority 10000), after any rule an operator adds by hand.
    PRIORITY = 9000

    def __init__(self, scope: Construct, id: str, *, config: StageConfig) -> None:
        super().__init__(scope, id)
        self.rule = xray.CfnSamplingRule(
            self,
            "Rule",
            sampling_rule=xray.CfnSamplingRule.SamplingRuleProperty(
                rule_name=config.prefix,  # at most 29 characters of X-Ray's 32
                priority=self.PRIORITY,
                reservoir_size=config.trace_sampling.reservoir,
                fixed_rate=config.trace_sampling.rate,
                service_name=f"{config.prefix}-*",
                service_type="*",
                host="*",
                http_method="*",
                url_path="*",
                resource_arn="*",
                version=1,
            ),
        )


class AlarmTopic(Construct):
    """Where every alarm goes; `alarmEmail` context subscribes an address."""

    def __init__(self, scope: Construct, id: str, *, config: StageConfig) -> None:
        super().__init__(scope, id)
        self.topic = sns.Topic(
            self, "Topic", display_name=f"Webstore {config.stage} alarms", enforce_ssl=True
        )
        if config.alarm_email:
            self.topic.add_subscription(subscriptions.EmailSubscription(config.alarm_email))
        self.action = actions.SnsAction(self.topic)


def account_function_metric(name: str) -> cloudwatch.Metric:
    """A Lambda metric summed over every function of the account and region (no dimension)."""
    return cloudwatch.Metric(namespace="AWS/Lambda", metric_name=name, period=PERIOD, statistic="Sum")


class Observability(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        config: StageConfig,
        topic: AlarmTopic,
        apis: dict[str, apigwv2.HttpApi],
        table: dynamodb.ITable,
        buffer: sqs.IQueue,
        dead_letter_queues: dict[str, sqs.IQueue],
        schedule_overdue: cloudwatch.IMetric,
        schedule_parked: cloudwatch.IMetric,
    ) -> None:
        super().__init__(scope, id)
        self.alarms: list[cloudwatch.Alarm] = []
        for name, api in apis.items():
            self._alarm(
                f"{name}ServerErrors",
                api.metric_server_error(period=SERVER_ERROR_PERIOD, statistic="Sum"),
                SERVER_ERRORS,
                f"{name} API: {SERVER_ERRORS} or more requests answered 5xx in 10 minutes",
            )
        self._alarm(
            "FunctionErrors",
            account_function_metric("Errors"),
            FUNCTION_ERRORS,
            "Lambda invocations failed (crash, timeout, out of memory): the dashboard's "
            "'Functions: errors' says which function",
        )

        for name, queue in dead_letter_queues.items():
            self._alarm(
                f"{name}Depth",
                queue.metric_approximate_number_of_messages_visible(period=PERIOD, statistic="Maximum"),
                1,
                f"{name}: messages gave up retrying; inspect and redrive",
            )
        self._alarm(
            "WebhookBufferAge",
            buffer.metric_approximate_age_of_oldest_message(period=PERIOD, statistic="Maximum"),
            BUFFER_AGE_SECONDS,
            "Webhook deliveries have been retrying for a long time",
        )
        # Each run reports the oldest due item's age; no report for 10 minutes is the clock
        # itself stopped, which is as bad: missing data breaches.
        self._alarm(
            "ScheduleOverdue",
            schedule_overdue,
            SCHEDULE_OVERDUE_SECONDS,
            "Subscription schedule items are overdue by more than 10 minutes (or the clock stopped)",
            missing=cloudwatch.TreatMissingData.BREACHING,
        )
        self._alarm(
            "ScheduleParked",
            schedule_parked,
            1,
            "Subscription schedule items kept failing and were parked: fix the cause, then redrive",
        )
        for alarm in self.alarms:
            alarm.add_alarm_action(topic.action)
        self.dashboard = (
            self._dashboard(config, apis, table, buffer, dead_letter_queues) if config.dashboard else None
        )

    def _alarm(
        self,
        id: str,
        metric: cloudwatch.IMetric,
        threshold: float,
        description: str,
        evaluation_periods: int = 1,
        missing: cloudwatch.TreatMissingData = cloudwatch.TreatMissingData.NOT_BREACHING,
    ) -> None:
        self.alarms.append(
            cloudwatch.Alarm(
                self,
                id,
                metric=metric,
                threshold=threshold,
                evaluation_periods=evaluation_periods,
                comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                treat_missing_data=missing,
                alarm_description=description,
            )
        )

    def _dashboard(
        self,
        config: StageConfig,
        apis: dict[str, apigwv2.HttpApi],
        table: dynamodb.ITable,
        buffer: sqs.IQueue,
        dead_letter_queues: dict[str, sqs.IQueue],
    ) -> cloudwatch.Dashboard:
        dashboard = cloudwatch.Dashboard(self, "Dashboard", dashboard_name=f"{config.prefix}")
        dashboard.add_widgets(
            cloudwatch.AlarmStatusWidget(title="Alarms", alarms=self.alarms, width=24, height=4)
        )
        for name, api in apis.items():
            dashboard.add_widgets(
                cloudwatch.GraphWidget(
                    title=f"{name}: requests and errors",
                    left=[api.metric_count(period=PERIOD), api.metric_client_error(period=PERIOD)],
                    right=[api.metric_server_error(period=PERIOD)],
                    width=12,
                ),
                cloudwatch.GraphWidget(
                    title=f"{name}: latency (p50, p99)",
                    left=[
                        api.metric_latency(period=PERIOD, statistic="p50"),
                        api.metric_latency(period=PERIOD, statistic="p99"),
                        api.metric_integration_latency(period=PERIOD, statistic="p99"),
                    ],
                    width=12,
                ),
            )

        def search(metric: str, statistic: str) -> cloudwatch.MathExpression:
            # Every function of this stage by name prefix: the dashboard needs no edit per route.
            query = f'{{AWS/Lambda,FunctionName}} MetricName="{metric}" "{config.prefix}-"'
            return cloudwatch.MathExpression(
                expression=f"SEARCH('{query}', '{statistic}', 300)",
                using_metrics={},
                label=metric,
                period=PERIOD,
            )

        dashboard.add_widgets(
            cloudwatch.GraphWidget(title="Functions: errors", left=[search("Errors", "Sum")], width=8),
            cloudwatch.GraphWidget(title="Functions: throttles", left=[search("Throttles", "Sum")], width=8),
            cloudwatch.GraphWidget(
                title="Functions: p99 duration", left=[search("Duration", "p99")], width=8
            ),
        )
        dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="Webhooks: buffer",
                left=[buffer.metric_approximate_number_of_messages_visible(period=PERIOD)],
                right=[buffer.metric_approximate_age_of_oldest_message(period=PERIOD)],
                width=8,
            ),
            cloudwatch.GraphWidget(
                title="Dead letters",
                left=[
                    q.metric_approximate_number_of_messages_visible(period=PERIOD, label=name)
                    for name, q in dead_letter_queues.items()
                ],
                width=8,
            ),
            cloudwatch.GraphWidget(
                title="Table: consumed capacity and throttles",
                left=[
                    table.metric_consumed_read_capacity_units(period=PERIOD),
                    table.metric_consumed_write_capacity_units(period=PERIOD),
                ],
                right=[table.metric_throttled_requests_for_operations(period=PERIOD)],
                width=8,
            ),
        )
        return dashboard
