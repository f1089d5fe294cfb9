#!/usr/bin/env python3
"""How fast the installed moto answers the DynamoDB calls our tests and the local stack make.

Under `mock_aws` (in process, as the unit and integration tests use it): a GetItem of one store
item, a Query of one store's catalog (the demo store's size: categories and packages under one
partition key, about 60 items) and a TransactWriteItems of three conditioned actions, as a
write use case commits. Prints the median and the 90th percentile per call, in ms, with moto's
version, so versions can be compared by running it with each one's interpreter:

    .venv/bin/python scripts/bench_moto.py [--calls 200]
    /tmp/moto-venv-5.1.22/bin/python scripts/bench_moto.py      # another moto in its own venv

Nothing here depends on the project's code: it is also the reproducer for a moto regression.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

TABLE = "bench"
CATALOG_SIZE = 60


def _timed(calls: int, call: Callable[[int], Any]) -> tuple[float, float]:
    durations = []
    for i in range(calls):
        started = time.perf_counter()
        call(i)
        durations.append((time.perf_counter() - started) * 1000)
    durations.sort()
    return statistics.median(durations), durations[int(len(durations) * 0.9)]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=200, help="timed calls per operation (default 200)")
    args = parser.parse_args()
    os.environ.update(
        AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_DEFAULT_REGION="eu-west-1"
    )
    import boto3
    import moto
    from moto import mock_aws

    with mock_aws():
        client = boto3.client("dynamodb", region_name="eu-west-1")
        client.create_table(
            TableName=TABLE,
            BillingMode="PAY_PER_REQUEST",
            KeySchema=[
                {"AttributeName": "PK", "KeyType": "HASH"},
                {"AttributeName": "SK", "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[
                {"AttributeName": n, "AttributeType": "S"} for n in ("PK", "SK", "GSI1PK", "GSI1SK")
            ],
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "GSI1",
                    "KeySchema": [
                        {"AttributeName": "GSI1PK", "KeyType": "HASH"},
                        {"AttributeName": "GSI1SK", "KeyType": "RANGE"},
                    ],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
        )
        client.put_item(
            TableName=TABLE,
            Item={
                "PK": {"S": "STORE#1"},
                "SK": {"S": "STORE"},
                "name": {"S": "Bench store"},
                "currency": {"S": "EUR"},
                "GSI1PK": {"S": "TOKEN#abc"},
                "GSI1SK": {"S": "STORE"},
            },
        )
        for n in range(CATALOG_SIZE):
            client.put_item(
                TableName=TABLE,
                Item={
                    "PK": {"S": "STORE#1"},
                    "SK": {"S": f"CATALOG#PACKAGE#{n:04}"},
                    "name": {"S": f"Package {n}"},
                    "price": {"N": "4.99"},
                    "commands": {
                        "L": [{"M": {"command": {"S": "give {username} diamond"}, "delay": {"N": "0"}}}]
                    },
                    "tags": {"SS": ["a", "b"]},
                },
            )

        def get_item(_: int) -> None:
            client.get_item(TableName=TABLE, Key={"PK": {"S": "STORE#1"}, "SK": {"S": "STORE"}})

        def query_catalog(_: int) -> None:
            found = client.query(
                TableName=TABLE,
                KeyConditionExpression="PK = :pk AND begins_with(SK, :prefix)",
                ExpressionAttributeValues={":pk": {"S": "STORE#1"}, ":prefix": {"S": "CATALOG#"}},
            )
            assert found["Count"] == CATALOG_SIZE

        def transact_write(i: int) -> None:
            client.transact_write_items(
                TransactItems=[
                    {
                        "ConditionCheck": {
                            "TableName": TABLE,
                            "Key": {"PK": {"S": "STORE#1"}, "SK": {"S": "STORE"}},
                            "ConditionExpression": "attribute_exists(PK)",
                        }
                    },
                    {
                        "Put": {
                            "TableName": TABLE,
                            "Item": {
                                "PK": {"S": f"BASKET#{i}"},
                                "SK": {"S": "BASKET"},
                                "total": {"N": "4.99"},
                            },
                            "ConditionExpression": "attribute_not_exists(PK)",
                        }
                    },
                    {
                        "Update": {
                            "TableName": TABLE,
                            "Key": {"PK": {"S": "STORE#1"}, "SK": {"S": "CATALOG#PACKAGE#0000"}},
                            "UpdateExpression": "ADD sold :one",
                            "ExpressionAttributeValues": {":one": {"N": "1"}},
                        }
                    },
                ]
            )

        for call in (get_item, query_catalog, transact_write):  # warm-up: first calls load models
            call(-1 - CATALOG_SIZE)
        print(f"moto {moto.__version__}, {args.calls} calls each (ms per call: median, p90)")
        for name, call in (
            ("GetItem", get_item),
            (f"Query ({CATALOG_SIZE} items)", query_catalog),
            ("TransactWriteItems (3)", transact_write),
        ):
            median, p90 = _timed(args.calls, call)
            print(f"  {name:28} {median:7.2f} {p90:7.2f}")


if __name__ == "__main__":
    main()
