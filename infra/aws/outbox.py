"""The outbox's publisher: DynamoDB Streams → EventBridge Pipes → the bus. No function of ours.

Use cases write each domain event into the table in the transaction of the change it describes
(webstore.repo.outbox: entity `outbox`, the webhook type in `type`, the bus event's detail as
JSON text in `detail`). The table's stream carries the committed item; the pipe keeps only the
INSERT records of that entity and puts each on the bus exactly as a direct PutEvents did: source
`webstore`, detail-type = the webhook type, detail = `{id, account_id, date, subject}`. The rule
on the bus (infra/aws/events.py) and the webhook dispatch are unchanged.

Records the pipe cannot put after its retries (bisecting a failed batch) are noted in the
stream-failures queue (shard and sequence numbers; the item itself stays in the table until
its TTL), whose depth is alarmed.
"""

from __future__ import annotations

import json

from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_events as events
from aws_cdk import aws_iam as iam
from aws_cdk import aws_pipes as pipes
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from webstore import keys
from webstore.events import SOURCE
from webstore.repo.outbox import DETAIL_ATTRIBUTE, TYPE_ATTRIBUTE

# Only new outbox items: not their TTL removal, not any other entity's change.
OUTBOX_INSERT = {
    "eventName": ["INSERT"],
    "dynamodb": {"NewImage": {"entity": {"S": [keys.OUTBOX_ENTITY]}}},
}
DETAIL_TYPE_PATH = f"$.dynamodb.NewImage.{TYPE_ATTRIBUTE}.S"
# The item's `detail` string is the event's detail (a JSON object's text), placed as the whole
# payload: Pipes replaces a variable naming a string with the string's text, unquoted (which is
# why its documentation has string variables quoted inside JSON templates), so the payload the
# bus receives as the event's detail is that object.
DETAIL_TEMPLATE = f"<$.dynamodb.NewImage.{DETAIL_ATTRIBUTE}.S>"
BATCH_SIZE = 10  # PutEvents takes at most 10 entries
RETRY_ATTEMPTS = 20
# The stream actions a pipe reading it needs (ListStreams has no resource-level permission).
STREAM_READ_ACTIONS = ("dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator")


class Outbox(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        table: dynamodb.ITable,
        bus: events.IEventBus,
        failures: sqs.IQueue,
        name: str,
    ) -> None:
        super().__init__(scope, id)
        stream_arn = table.table_stream_arn
        if stream_arn is None:
            raise ValueError("the outbox needs the table's stream (NEW_IMAGE or NEW_AND_OLD_IMAGES)")
        self.role = iam.Role(
            self,
            "Role",
            assumed_by=iam.ServicePrincipal("pipes.amazonaws.com"),
            description="The outbox pipe: reads the table's stream, puts events on the bus",
        )
        self.role.add_to_policy(
            iam.PolicyStatement(actions=list(STREAM_READ_ACTIONS), resources=[stream_arn])
        )
        self.role.add_to_policy(iam.PolicyStatement(actions=["dynamodb:ListStreams"], resources=["*"]))
        self.role.add_to_policy(
            iam.PolicyStatement(actions=["events:PutEvents"], resources=[bus.event_bus_arn])
        )
        self.role.add_to_policy(
            iam.PolicyStatement(actions=["sqs:SendMessage"], resources=[failures.queue_arn])
        )
        self.pipe = pipes.CfnPipe(
            self,
            "Pipe",
            name=name,
            description="Committed outbox items (table stream INSERTs) → the bus, as the events they hold",
            role_arn=self.role.role_arn,
            source=stream_arn,
            source_parameters=pipes.CfnPipe.PipeSourceParametersProperty(
                filter_criteria=pipes.CfnPipe.FilterCriteriaProperty(
                    filters=[pipes.CfnPipe.FilterProperty(pattern=json.dumps(OUTBOX_INSERT))]
                ),
                dynamo_db_stream_parameters=pipes.CfnPipe.PipeSourceDynamoDBStreamParametersProperty(
                    starting_position="TRIM_HORIZON",  # a new pipe takes what the stream still holds
                    batch_size=BATCH_SIZE,
                    maximum_batching_window_in_seconds=0,
                    maximum_retry_attempts=RETRY_ATTEMPTS,
                    on_partial_batch_item_failure="AUTOMATIC_BISECT",
                    dead_letter_config=pipes.CfnPipe.DeadLetterConfigProperty(arn=failures.queue_arn),
                ),
            ),
            target=bus.event_bus_arn,
            target_parameters=pipes.CfnPipe.PipeTargetParametersProperty(
                input_template=DETAIL_TEMPLATE,
                event_bridge_event_bus_parameters=pipes.CfnPipe.PipeTargetEventBridgeEventBusParametersProperty(
                    source=SOURCE, detail_type=DETAIL_TYPE_PATH
                ),
            ),
        )
        self.pipe.node.add_dependency(self.role)
