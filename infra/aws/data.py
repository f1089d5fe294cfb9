"""The one DynamoDB table, built from the same constants the local stack creates it from."""

from __future__ import annotations

from typing import Any, cast

from aws_cdk import RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
from constructs import Construct

from infra.aws.config import StageConfig
from webstore import db

# What the basket-expiry consumer receives: TTL deletions (made by the DynamoDB service itself,
# not by a user's DeleteItem) of basket items. Lambda applies this before invoking.
BASKET_ENTITY = "basket"
TTL_REMOVAL_OF_BASKET = {
    "eventName": ["REMOVE"],
    "userIdentity": {"type": ["Service"], "principalId": ["dynamodb.amazonaws.com"]},
    "dynamodb": {"OldImage": {"entity": {"S": [BASKET_ENTITY]}}},
}


def _attribute(name: str) -> dynamodb.Attribute:
    types = {d["AttributeName"]: d["AttributeType"] for d in db.ATTRIBUTE_DEFINITIONS}
    return dynamodb.Attribute(name=name, type=dynamodb.AttributeType(_TYPES[types[name]]))


_TYPES = {"S": "STRING", "N": "NUMBER", "B": "BINARY"}


def _key(schema: list[dict[str, str]], key_type: str) -> dynamodb.Attribute | None:
    names = [k["AttributeName"] for k in schema if k["KeyType"] == key_type]
    return _attribute(names[0]) if names else None


class Data(Construct):
    """On-demand, point-in-time recovery, TTL, a stream for expiries; retained in production."""

    def __init__(self, scope: Construct, id: str, *, config: StageConfig) -> None:
        super().__init__(scope, id)
        partition_key = _key(db.KEY_SCHEMA, "HASH")
        assert partition_key is not None
        self.table = dynamodb.Table(
            self,
            "Table",
            partition_key=partition_key,
            sort_key=_key(db.KEY_SCHEMA, "RANGE"),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            time_to_live_attribute=db.TTL_ATTRIBUTE,
            stream=dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
            deletion_protection=config.production,
            removal_policy=RemovalPolicy.RETAIN if config.production else RemovalPolicy.DESTROY,
        )
        for index in cast(list[dict[str, Any]], db.GLOBAL_SECONDARY_INDEXES):
            gsi_partition = _key(index["KeySchema"], "HASH")
            assert gsi_partition is not None
            self.table.add_global_secondary_index(
                index_name=index["IndexName"],
                partition_key=gsi_partition,
                sort_key=_key(index["KeySchema"], "RANGE"),
                projection_type=dynamodb.ProjectionType(index["Projection"]["ProjectionType"]),
            )
