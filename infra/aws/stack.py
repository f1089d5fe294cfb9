"""The whole service in one deployable stack (plus one nested stack per interface)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from aws_cdk import CfnOutput, Stack, Tags
from aws_cdk import aws_events as events
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from functions.runtime import Interface
from infra.aws import bundling, layers
from infra.aws.apis import Apis, Operations, operation_stacks
from infra.aws.config import StageConfig
from infra.aws.data import Data
from infra.aws.edge import ShopEdge
from infra.aws.events import Events
from infra.aws.functions import ARCHITECTURE, RUNTIME, Shared
from infra.aws.mail import Mail
from infra.aws.observability import AlarmTopic, Observability, TraceSampling
from infra.aws.outbox import Outbox
from infra.aws.schedule import Clock


class WebstoreStack(Stack):
    """Table, bus, outbox pipe, webhook pipeline, the four APIs with a function per operation,
    the shop's CloudFront distribution and assets bucket, alarms, dashboard.

    Environment-agnostic (no account or region) so `cdk synth` runs offline with no credentials.
    """

    def __init__(self, scope: Construct, id: str, *, config: StageConfig, root: Path = bundling.ROOT) -> None:
        super().__init__(
            scope, id, description=f"Webstore ({config.stage}): storefront, operator, control panel and shop"
        )
        self.config = config
        Tags.of(self).add("project", "webstore")
        Tags.of(self).add("stage", config.stage)

        self.data = Data(self, "Data", config=config)
        self.bus = events.EventBus(self, "Bus", event_bus_name=config.prefix)
        self.apis = Apis(self, "Apis", config=config)
        self.edge = ShopEdge(self, "ShopEdge", config=config, api=self.apis.shop)
        self.layers = {
            name: lambda_.LayerVersion(
                self,
                "Dependencies" if name == layers.BASE else f"{name.capitalize()}Dependencies",
                code=bundling.layer_code(root, name),
                compatible_runtimes=[RUNTIME],
                compatible_architectures=[ARCHITECTURE],
                description=(
                    "Webstore runtime dependencies but Stripe and cryptography, 3.12 bytecode"
                    if name == layers.BASE
                    else f"{layers.OPTIONAL[name][0]} and what it adds to the base layer, 3.12 bytecode"
                ),
            )
            for name in (layers.BASE, *layers.OPTIONAL)
        }
        self.mail = (
            Mail(self, "Mail", config=config, domain=config.mail_domain, from_address=config.mail_from)
            if config.mail_domain and config.mail_from
            else None
        )
        shared = Shared(
            config=config,
            code=bundling.function_code(root),
            layers=self.layers,
            table=self.data.table,
            bus=self.bus,
            storefront_url=self.apis.storefront_url,
            operator_url=self.apis.operator_url,
            admin_url=self.apis.admin_url,
            shop_url=self.edge.url,
            webhook_key=self.data.webhook_key,
            mail=self.mail.wiring if self.mail else None,
        )
        self.events = Events(self, "Events", shared=shared, bus=self.bus)
        if self.mail is not None:  # SES's reports reach the mail consumer beside the domain events
            self.mail.report_to(self.events.mail_buffer, self.events.dead_letters)
        # Events written by use cases in their transactions reach the bus from the table's stream.
        self.outbox = Outbox(
            self,
            "Outbox",
            table=self.data.table,
            bus=self.bus,
            failures=self.events.stream_failures,
            name=f"{config.prefix}-outbox",
        )
        self.clock = Clock(self, "Clock", shared=shared)
        self.alarm_topic = AlarmTopic(self, "AlarmTopic", config=config)
        self.trace_sampling = TraceSampling(self, "TraceSampling", config=config)

        self.operations: dict[Interface, tuple[Operations, ...]] = {}
        for interface in Interface:
            stacks = []
            for n, table in enumerate(operation_stacks(interface)):
                nested = Operations(
                    self,
                    f"{interface.value.capitalize()}Operations{n + 1 if n else ''}",
                    interface=interface,
                    table=table,
                    api=self.apis.api(interface),
                    # CDK binds a code asset to one stack: each nested stack gets its own (same hash).
                    shared=dataclasses.replace(shared, code=bundling.function_code(root)),
                    serves_unmatched=n == 0,
                )
                stacks.append(nested)
            self.operations[interface] = tuple(stacks)

        self.observability = Observability(
            self,
            "Observability",
            config=config,
            topic=self.alarm_topic,
            apis={
                "Storefront": self.apis.storefront,
                "Operator": self.apis.operator,
                "Admin": self.apis.admin,
                "Shop": self.apis.shop,
            },
            table=self.data.table,
            buffer=self.events.buffer,
            dead_letter_queues={
                "EventDeadLetters": self.events.dead_letters,  # webhooks, e-mail and Discord
                "StreamFailures": self.events.stream_failures,
                "ScheduleDeadLetters": self.clock.dead_letters,
            },
            schedule_overdue=self.clock.overdue_metric(),
            schedule_parked=self.clock.parked_metric(),
        )

        CfnOutput(
            self, "StorefrontUrl", value=self.apis.storefront_url, description="Storefront API base URL"
        )
        CfnOutput(self, "OperatorUrl", value=self.apis.operator_url, description="Operator API base URL")
        CfnOutput(self, "AdminUrl", value=self.apis.admin_url, description="The control panel (sign in here)")
        CfnOutput(self, "ShopUrl", value=self.edge.url, description="The players' shop (CloudFront)")
        CfnOutput(
            self, "ShopAssetsBucket", value=self.edge.bucket.bucket_name, description="The shop's files"
        )
        CfnOutput(
            self, "TableName", value=self.data.table.table_name, description="for `webstore import --table`"
        )
        CfnOutput(self, "EventBusName", value=self.bus.event_bus_name)
        CfnOutput(
            self,
            "WebhookKeySecret",
            value=self.data.webhook_key.secret_arn,
            description="for `webstore import --webhook-key-secret` (seals webhook signing secrets)",
        )
        if self.observability.dashboard is not None:
            CfnOutput(self, "DashboardName", value=self.observability.dashboard.dashboard_name)
