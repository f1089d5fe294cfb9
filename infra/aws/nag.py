"""cdk-nag AwsSolutions findings we accept, each with the reason it is right for this service.

Kept in one place so a reviewer sees every exception at once. Anything not acknowledged here
fails `cdk synth` (and the infra tests).
"""

from __future__ import annotations

from aws_cdk import Acknowledgment, Validations
from constructs import IConstruct

from infra.aws.apis import Operations
from infra.aws.functions import WebstoreFunction
from infra.aws.stack import WebstoreStack

BASIC_EXECUTION_ROLE = "arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
FUNCTION_FINDINGS = {
    f"AwsSolutions-IAM4[Policy::{BASIC_EXECUTION_ROLE}]": (
        "AWSLambdaBasicExecutionRole grants only logs:CreateLogGroup/CreateLogStream/PutLogEvents, "
        "which every function needs for its own log group."
    ),
    "AwsSolutions-IAM5[Resource::*]": (
        "X-Ray's PutTraceSegments/PutTelemetryRecords (active tracing) and DynamoDB's ListStreams "
        "(stream consumer) support no resource-level permissions. Table and bus actions are "
        "scoped to their ARNs (table, named indexes, bus)."
    ),
    "AwsSolutions-L1": (
        "Pinned to python3.12 on purpose: the dependency layer is resolved (pip --python-version) "
        "and byte-compiled for 3.12, and local/CI tests run the same minor. Moving is one change "
        "in infra/aws/bundling.py and infra/aws/functions.py."
    ),
}
ROUTE_AUTHORIZATION = (
    "Authorization is the function's own, per the interface contract: storefront routes are "
    "public or Basic auth with the store's checkout key; operator routes need the server secret "
    "header, looked up by hash and compared in constant time. API Gateway authorizers cannot "
    "express either without a second Lambda invocation per request."
)
STREAM_FAILURES_IS_A_DLQ = (
    "StreamFailures is itself a dead-letter destination (the stream consumer's on-failure queue); "
    "a DLQ of a DLQ would only move the problem. Its depth is alarmed."
)
CLOCK_DEAD_LETTERS_IS_A_DLQ = (
    "The clock's DeadLetters queue is itself the dead-letter destination of the schedule rule's "
    "target (invocations EventBridge could not deliver); its depth is alarmed."
)

OUTBOX_PIPE_LIST_STREAMS = (
    "DynamoDB's ListStreams supports no resource-level permission; the outbox pipe's other stream "
    "actions are scoped to the table's stream, PutEvents to the bus, SendMessage to one queue."
)

WEBHOOK_KEY_NOT_ROTATED = (
    "The webhook key seals the stored webhook signing secrets; rotating it in Secrets Manager "
    "alone would leave every sealed secret unopenable. Rotation is a re-seal: put a new value, "
    "then re-import each store's catalog (`webstore import`), which seals its secrets anew."
)

# The shop's edge (infra/aws/edge.py).
EDGE_FINDINGS = {
    "AwsSolutions-S1": (
        "The assets bucket holds the shop's public, content-hashed CSS and scripts, read only "
        "by CloudFront through Origin Access Control; server access logs would record nothing "
        "the distribution's requests do not."
    ),
    "AwsSolutions-CFR1": "A shop sells to players in any country: no geographic restriction.",
    "AwsSolutions-CFR2": (
        "AWS WAF is $5 a month per web ACL plus $1 per rule before any request, above an idle "
        "stage's whole budget (docs/deploy.md); the API's stage throttling and the functions' "
        "own guards (CSRF, the failure guard) stay in place behind the distribution."
    ),
    "AwsSolutions-CFR3": (
        "Standard access logs need a log bucket with ACLs; the API's access logs behind the "
        "distribution record every request that reaches a function (cached hits excepted)."
    ),
    "AwsSolutions-CFR4": (
        "Without a custom domain the distribution answers on its cloudfront.net name with "
        "CloudFront's default certificate, whose security policy CloudFront fixes; with "
        "`shopDomain` the minimum is TLS 1.2 (2021)."
    ),
}
BUCKET_DEPLOYMENT_FINDINGS = {
    f"AwsSolutions-IAM4[Policy::{BASIC_EXECUTION_ROLE}]": (
        "CDK's BucketDeployment function (it uploads the shop's static files at deploy time) "
        "writes its own logs."
    ),
    "AwsSolutions-IAM5[Action::s3:GetObject*]": (
        "BucketDeployment's grant: read the deployment's asset objects from CDK's asset bucket "
        "and the destination's keys (content-hashed names are unknown until deploy)."
    ),
    "AwsSolutions-IAM5[Action::s3:GetBucket*]": "BucketDeployment's read of its two buckets' metadata.",
    "AwsSolutions-IAM5[Action::s3:List*]": "BucketDeployment lists the destination prefix it syncs.",
    "AwsSolutions-IAM5[Action::s3:DeleteObject*]": (
        "BucketDeployment's grant on its destination bucket (the shop's assets alone); with "
        "`prune` off it deletes nothing."
    ),
    "AwsSolutions-IAM5[Action::s3:Abort*]": "BucketDeployment's multipart uploads to the assets bucket.",
    "AwsSolutions-L1": (
        "BucketDeployment's function runtime is chosen by CDK (it runs the AWS CLI at deploy "
        "time, never for a player's request); it moves with CDK upgrades."
    ),
}
CDK_ASSETS = "arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*"
BUCKET_DEPLOYMENT_RESOURCES = (
    "BucketDeployment's grant covers every key under its asset bucket's and destination's "
    "prefixes: the uploaded names are known only at deploy time."
)


def _acknowledge(scope: IConstruct, finding: str, reason: str) -> None:
    Validations.of(scope).acknowledge(Acknowledgment(id=finding, reason=reason))


def acknowledge_findings(stack: WebstoreStack) -> None:
    """Acknowledge, on the narrowest construct that carries it, each finding we accept."""
    for construct in stack.node.find_all():
        if isinstance(construct, WebstoreFunction):
            for finding, reason in FUNCTION_FINDINGS.items():
                _acknowledge(construct, finding, reason)
        elif isinstance(construct, Operations):
            for function in construct.all_functions:
                for child in function.node.children:
                    if child.node.id.startswith("Route") or child.node.id == "DefaultRoute":
                        _acknowledge(child, "AwsSolutions-APIG4", ROUTE_AUTHORIZATION)
    _acknowledge(stack.events.stream_failures, "AwsSolutions-SQS3", STREAM_FAILURES_IS_A_DLQ)
    _acknowledge(stack.outbox.role, "AwsSolutions-IAM5[Resource::*]", OUTBOX_PIPE_LIST_STREAMS)
    _acknowledge(stack.clock.dead_letters, "AwsSolutions-SQS3", CLOCK_DEAD_LETTERS_IS_A_DLQ)
    _acknowledge(stack.data.webhook_key, "AwsSolutions-SMG4", WEBHOOK_KEY_NOT_ROTATED)
    for finding, reason in EDGE_FINDINGS.items():
        _acknowledge(stack.edge, finding, reason)
    for child in stack.node.children:  # CDK's one BucketDeployment function per stack
        if child.node.id.startswith("Custom::CDKBucketDeployment"):
            for finding, reason in BUCKET_DEPLOYMENT_FINDINGS.items():
                _acknowledge(child, finding, reason)
            bucket = stack.get_logical_id(stack.edge.bucket.node.default_child)  # type: ignore[arg-type]
            for resource in (f"<{bucket}.Arn>/*", CDK_ASSETS):
                _acknowledge(child, f"AwsSolutions-IAM5[Resource::{resource}]", BUCKET_DEPLOYMENT_RESOURCES)
