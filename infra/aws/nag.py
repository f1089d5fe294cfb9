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
