"""Alarms (to one SNS topic) and a dashboard for the whole service.

Alarm choices (see docs/deploy.md): each API's 5xx rate, every function's errors and throttles,
dead letters on either queue, webhook deliveries stuck retrying in the buffer, and the
dispatch function failing whole batches.
"""

from __future__ import annotations

from collections.abc import Iterable

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
from infra.aws.functions import WebstoreFunction

PERIOD = Duration.minutes(5)
# 1% of requests answered 5xx over 10 minutes: a broken deploy or a failing dependency.
SERVER_ERROR_RATE_PERCENT = 1
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


def function_alarms(functions: Iterable[WebstoreFunction], topic: sns.ITopic) -> None:
    """Errors (crashes, timeouts: endpoint errors are 5xx answers, not Lambda errors) and throttles."""
    action = actions.SnsAction(topic)
    for each in functions:
        errors = each.function.metric_errors(period=PERIOD, statistic="Sum").create_alarm(
            each,
            "Errors",
            alarm_description=f"{each.function.function_name}: invocations failed (crash, timeout, OOM)",
            threshold=3,
            evaluation_periods=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )
        throttles = each.function.metric_throttles(period=PERIOD, statistic="Sum").create_alarm(
            each,
            "Throttles",
            alarm_description=f"{each.function.function_name}: invocations throttled (concurrency exhausted)",
            threshold=1,
            evaluation_periods=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )
        errors.add_alarm_action(action)
        throttles.add_alarm_action(action)


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
        dispatch: WebstoreFunction,
        schedule_overdue: cloudwatch.IMetric,
        schedule_parked: cloudwatch.IMetric,
    ) -> None:
        super().__init__(scope, id)
        self.alarms: list[cloudwatch.Alarm] = []
        for name, api in apis.items():
            requests = api.metric_count(period=PERIOD, statistic="Sum")
            server_errors = api.metric_server_error(period=PERIOD, statistic="Sum")
            rate = cloudwatch.MathExpression(
                expression="IF(requests > 0, 100 * errors / requests, 0)",
                using_metrics={"requests": requests, "errors": server_errors},
                label=f"{name} 5xx %",
                period=PERIOD,
            )
            self._alarm(
                f"{name}ServerErrorRate",
                rate,
                SERVER_ERROR_RATE_PERCENT,
                f"{name} API: more than {SERVER_ERROR_RATE_PERCENT}% of requests answered 5xx",
                evaluation_periods=2,
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
        self._alarm(
            "DispatchFailures",
            dispatch.function.metric_errors(period=PERIOD, statistic="Sum"),
            1,
            "The webhook dispatch function failed whole batches (not single deliveries)",
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
        self.dashboard = self._dashboard(config, apis, table, buffer, dead_letter_queues)

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
