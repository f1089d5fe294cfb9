"""One way to make a Webstore Lambda function: same runtime, asset, settings and tracing; the
dependency layers its code can import (infra/aws/layers.py).

Each function gets exactly the table/bus permissions its declaration names (`Access`), with
explicit DynamoDB actions on the table and its named indexes: CDK's `grant_read_data` would also
allow Scan (no request path scans) and every index by wildcard.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from aws_cdk import Aws, Duration, RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_events as events
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from functions.declarations import Access
from infra.aws.config import StageConfig
from infra.aws.layers import layers_for
from infra.aws.mail import MailWiring
from webstore import db
from webstore.failure_guard import GUARD_KEY_PREFIXES

RUNTIME = lambda_.Runtime.PYTHON_3_12
ARCHITECTURE = lambda_.Architecture.ARM_64
METRICS_NAMESPACE = "Webstore"

# TransactWriteItems is authorized by the Put/Update/Delete/ConditionCheck actions it carries.
TABLE_READ_ACTIONS = (
    "dynamodb:GetItem",
    "dynamodb:BatchGetItem",
    "dynamodb:Query",
    "dynamodb:ConditionCheckItem",
)
TABLE_WRITE_ACTIONS = (
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:DeleteItem",
    "dynamodb:BatchWriteItem",
)
# The brute-force guard counts a wrong secret or checkout key with UpdateItem, or PutItem when
# its window lapsed.
SECRET_GUARD_ACTIONS = ("dynamodb:UpdateItem", "dynamodb:PutItem")


def secret_guard_statement(table_arn: str) -> iam.PolicyStatement:
    """Writes of the guard's failure counters only: items whose partition key has one of its
    prefixes (server secrets, checkout keys)."""
    return iam.PolicyStatement(
        actions=list(SECRET_GUARD_ACTIONS),
        resources=[table_arn],
        conditions={
            "ForAllValues:StringLike": {"dynamodb:LeadingKeys": [f"{p}*" for p in GUARD_KEY_PREFIXES]}
        },
    )


@dataclass(frozen=True)
class Shared:
    """What every function of a stack is built from (the settings every function reads)."""

    config: StageConfig
    code: lambda_.Code
    layers: Mapping[str, lambda_.ILayerVersion]  # by name (infra/aws/layers.py)
    table: dynamodb.ITable
    bus: events.IEventBus
    storefront_url: str
    operator_url: str
    webhook_key: secretsmanager.ISecret
    admin_url: str = ""
    shop_url: str = ""
    # The stage's SES identity (infra/aws/mail.py); None: the stage sends no e-mail.
    mail: MailWiring | None = None

    def environment(self, service: str) -> dict[str, str]:
        return {
            "WEBSTORE_TABLE_NAME": self.table.table_name,
            "WEBSTORE_EVENT_BUS_NAME": self.bus.event_bus_name,
            "WEBSTORE_EVENTS": "eventbridge",
            "WEBSTORE_STOREFRONT_URL": self.storefront_url,
            "WEBSTORE_OPERATOR_URL": self.operator_url,
            **({"WEBSTORE_ADMIN_URL": self.admin_url} if self.admin_url else {}),
            **({"WEBSTORE_SHOP_URL": self.shop_url} if self.shop_url else {}),
            **({"WEBSTORE_SHOP_STORE_ID": str(shop)} if (shop := self.config.shop_store_id) else {}),
            "WEBSTORE_REGION": Aws.REGION,
            # Production refuses the sandbox gateway unless a store opts in (webstore.gateway_settings).
            "WEBSTORE_PRODUCTION": "true" if self.config.production else "false",
            "POWERTOOLS_SERVICE_NAME": service,
            "POWERTOOLS_METRICS_NAMESPACE": METRICS_NAMESPACE,
            "POWERTOOLS_LOG_LEVEL": self.config.log_level,
        }


def function_name(config: StageConfig, kind: str, module: str) -> str:
    """`webstore-<stage>-<kind>-<module>`, kept within Lambda's 64 characters by a hash suffix."""
    name = f"{config.prefix}-{kind}-{module.rsplit('.', 1)[-1].replace('_', '-')}"
    if len(name) <= 64:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[:55]}-{digest}"


class WebstoreFunction(Construct):
    """A function of the shared code asset, with its own log group and least-privilege role.

    `target` is what invokers call: the function, or its `live` alias when SnapStart is on
    (SnapStart snapshots published versions only).
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        shared: Shared,
        handler: str,
        name: str,
        service: str,
        access: Iterable[Access],
        memory_mb: int = 512,
        timeout_seconds: int = 10,
        description: str = "",
    ) -> None:
        super().__init__(scope, id)
        config = shared.config
        self.log_group = logs.LogGroup(
            self,
            "Logs",
            retention=logs.RetentionDays.THREE_MONTHS if config.production else logs.RetentionDays.TWO_WEEKS,
            removal_policy=RemovalPolicy.RETAIN if config.production else RemovalPolicy.DESTROY,
        )
        self.function = lambda_.Function(
            self,
            "Function",
            function_name=name,
            description=description or handler,
            code=shared.code,
            handler=handler,
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            layers=[shared.layers[name] for name in layers_for(handler)],
            memory_size=memory_mb,
            timeout=Duration.seconds(timeout_seconds),
            environment=shared.environment(service),
            tracing=lambda_.Tracing.ACTIVE,
            log_group=self.log_group,
            snap_start=lambda_.SnapStartConf.ON_PUBLISHED_VERSIONS if config.snap_start else None,
        )
        self.target: lambda_.IFunction = (
            self.function.add_alias("live") if config.snap_start else self.function
        )
        self.access = frozenset(access)
        table_arn = shared.table.table_arn
        if Access.TABLE_READ in self.access or Access.TABLE_WRITE in self.access:
            # The table and its named indexes, not CDK's `index/*`: no wildcard to justify.
            indexes = [f"{table_arn}/index/{index['IndexName']}" for index in db.GLOBAL_SECONDARY_INDEXES]
            self.function.add_to_role_policy(
                iam.PolicyStatement(actions=list(TABLE_READ_ACTIONS), resources=[table_arn, *indexes])
            )
        if Access.TABLE_WRITE in self.access:
            self.function.add_to_role_policy(
                iam.PolicyStatement(actions=list(TABLE_WRITE_ACTIONS), resources=[table_arn])
            )
        if Access.SECRET_GUARD in self.access and Access.TABLE_WRITE not in self.access:
            self.function.add_to_role_policy(secret_guard_statement(table_arn))
        if self.access & {Access.WEBHOOK_KEY, Access.GATEWAY_KEY, Access.PANEL_KEY}:
            # Its name in the environment; its value read at run time (Powertools, cached).
            self.function.add_environment("WEBSTORE_WEBHOOK_KEY_SECRET", shared.webhook_key.secret_arn)
            shared.webhook_key.grant_read(self.function)
        if Access.BUS_PUT in self.access:
            shared.bus.grant_put_events_to(self.function)
        if Access.MAIL_SEND in self.access:
            self._may_send_mail(shared.mail)
        if Access.MAIL_CHECK in self.access:
            self._may_check_mail(shared.mail)

    def _may_check_mail(self, mail: MailWiring | None) -> None:
        """SES v2 GetEmailIdentity on the stage's identity, nothing else (the Go live page's
        e-mail row); without an identity the transport is off and nothing is asked."""
        self.function.add_environment("WEBSTORE_MAIL_TRANSPORT", "ses" if mail else "off")
        if mail is None:
            return
        self.function.add_environment("WEBSTORE_MAIL_FROM", mail.from_address)
        self.function.add_to_role_policy(
            iam.PolicyStatement(actions=["ses:GetEmailIdentity"], resources=[mail.identity_arn])
        )

    def _may_send_mail(self, mail: MailWiring | None) -> None:
        """SES v2 SendEmail from the stage's identity through its configuration set, nothing else;
        without an identity the function's transport is off (messages are logged as failed)."""
        if mail is None:
            self.function.add_environment("WEBSTORE_MAIL_TRANSPORT", "off")
            return
        self.function.add_environment("WEBSTORE_MAIL_TRANSPORT", "ses")
        self.function.add_environment("WEBSTORE_MAIL_FROM", mail.from_address)
        self.function.add_environment("WEBSTORE_MAIL_CONFIGURATION_SET", mail.configuration_set_name)
        self.function.add_to_role_policy(
            iam.PolicyStatement(
                actions=["ses:SendEmail"], resources=[mail.identity_arn, mail.configuration_set_arn]
            )
        )
