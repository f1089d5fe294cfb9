"""The embedded table as a store (infra/embedded.py): a cancelled transaction puts back exactly
the items it touched (no table copies), moto keeps no model instances, and every write a call
makes reaches the journal before the call returns (in the table's order)."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from moto import mock_aws

from infra.embedded import EmbeddedStore, as_a_store


def key(sk: str) -> dict[str, Any]:
    return {"PK": {"S": "A"}, "SK": {"S": sk}}


@pytest.fixture
def journaled() -> Any:
    store = EmbeddedStore()
    lines: list[list[dict[str, Any]]] = []
    with mock_aws(), as_a_store(store):
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(
            TableName="t",
            KeySchema=[
                {"AttributeName": "PK", "KeyType": "HASH"},
                {"AttributeName": "SK", "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("PK", "SK")],
            BillingMode="PAY_PER_REQUEST",
        )
        store.journal = lines.append
        yield client, lines
        store.close()


def test_a_cancelled_transaction_puts_back_what_it_touched_and_journals_nothing(journaled: Any) -> None:
    from moto.dynamodb.models.dynamo_type import Item
    from moto.dynamodb.models.table import Table

    client, lines = journaled
    client.put_item(TableName="t", Item={**key("kept"), "n": {"N": "1"}})
    client.put_item(TableName="t", Item={**key("gone"), "n": {"N": "1"}})
    assert [r["i"]["n"] for [r] in lines] == [{"N": "1"}, {"N": "1"}]
    with pytest.raises(client.exceptions.TransactionCanceledException):
        client.transact_write_items(
            TransactItems=[
                {"Update": {"TableName": "t", "Key": key("kept"), "UpdateExpression": "ADD n :one",
                            "ExpressionAttributeValues": {":one": {"N": "1"}}}},
                {"Delete": {"TableName": "t", "Key": key("gone")}},
                {"Put": {"TableName": "t", "Item": {**key("new")}}},
                {"ConditionCheck": {"TableName": "t", "Key": key("absent"),
                                    "ConditionExpression": "attribute_exists(PK)"}},
            ]
        )  # fmt: skip
    items = {i["SK"]["S"]: i["n"]["N"] for i in client.scan(TableName="t")["Items"]}
    assert items == {"kept": "1", "gone": "1"}
    assert len(lines) == 2  # nothing changed: nothing journaled
    assert len(Table.instances_tracked) == 0 and len(Item.instances_tracked) == 0


def test_a_committed_transaction_journals_every_after_image_in_one_line(journaled: Any) -> None:
    client, lines = journaled
    client.put_item(TableName="t", Item={**key("a"), "n": {"N": "1"}})
    client.transact_write_items(
        TransactItems=[
            {"Update": {"TableName": "t", "Key": key("a"), "UpdateExpression": "ADD n :one",
                        "ExpressionAttributeValues": {":one": {"N": "1"}}}},
            {"Put": {"TableName": "t", "Item": {**key("b"), "x": {"B": b"\x00"}}}},
        ]
    )  # fmt: skip
    client.delete_item(TableName="t", Key=key("b"))
    assert [[(r["k"]["SK"]["S"], r["i"]) for r in line] for line in lines[1:]] == [
        [("a", {**key("a"), "n": {"N": "2"}}), ("b", {**key("b"), "x": {"B": "AA=="}})],
        [("b", None)],
    ]


def test_a_write_outside_the_critical_section_is_refused(journaled: Any) -> None:
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    client, _ = journaled
    client.get_item(TableName="t", Key=key("a"))  # a read journals nothing and needs nothing
    backend = dynamodb_backends[DEFAULT_ACCOUNT_ID]["us-east-1"]
    with pytest.raises(RuntimeError, match="outside its critical section"):
        backend.put_item("t", {**key("sneaky")})


def test_a_query_on_the_key_reads_its_partition_not_the_table(
    journaled: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """moto filters the whole table on each Query; the store reads only the partition asked for,
    so a request does not slow down as the store grows. Paging, order and key conditions hold."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    client, _ = journaled
    for n in range(300):
        client.put_item(TableName="t", Item={"PK": {"S": f"other#{n}"}, "SK": {"S": "x"}})
    for n in range(5):
        client.put_item(TableName="t", Item={**key(f"item#{n}"), "n": {"N": str(n)}})
    compared = 0
    equal = DynamoType.__eq__

    def counting(self: Any, other: Any) -> bool:
        nonlocal compared
        compared += 1
        return equal(self, other)

    monkeypatch.setattr(DynamoType, "__eq__", counting)
    query: dict[str, Any] = {
        "TableName": "t",
        "KeyConditionExpression": "PK = :pk AND begins_with(SK, :p)",
        "ExpressionAttributeValues": {":pk": {"S": "A"}, ":p": {"S": "item#"}},
    }
    first = client.query(**query, Limit=2, ScanIndexForward=False)
    rest = client.query(**query, ExclusiveStartKey=first["LastEvaluatedKey"], ScanIndexForward=False)
    assert compared < 100  # the 300 other partitions are never looked at
    found = [i["SK"]["S"] for i in first["Items"] + rest["Items"]]
    assert found == [f"item#{n}" for n in (4, 3, 2, 1, 0)]
    elsewhere = {":pk": {"S": "none"}, ":p": {"S": "item#"}}
    assert client.query(**{**query, "ExpressionAttributeValues": elsewhere})["Items"] == []


def test_the_suites_moto_answers_one_call_at_a_time(table: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The test session runs moto as a store (tests/conftest.py): each DynamoDB call atomic, as
    in DynamoDB. moto is not thread-safe inside a call (a Query on an index iterates the table
    while another thread's put adds to it), and checkout reads beside its claim in threads."""
    import threading
    import time

    from moto.dynamodb.models import DynamoDBBackend

    from tests.support.threads import in_threads

    inside = [0, 0]  # now, most
    count_lock = threading.Lock()
    get_item = DynamoDBBackend.get_item

    def slow_get_item(self: Any, *args: Any, **kwargs: Any) -> Any:
        with count_lock:
            inside[0] += 1
            inside[1] = max(inside)
        time.sleep(0.005)
        with count_lock:
            inside[0] -= 1
        return get_item(self, *args, **kwargs)

    monkeypatch.setattr(DynamoDBBackend, "get_item", slow_get_item)
    in_threads(lambda n: table.get({"PK": f"P{n}", "SK": "S"}), [(n,) for n in range(8)])
    assert inside[1] == 1
