"""The one DynamoDB table: its schema, and a thin typed wrapper over the low-level client.

Every repository goes through `Table`, so each method here is exactly one round trip
(batch_get and transact split only past DynamoDB's own per-call limits).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from decimal import Decimal
from enum import Enum
from typing import Any, TypeVar

from botocore.exceptions import ClientError
from pydantic import BaseModel

from webstore.attribute_values import deserialize, serialize
from webstore.errors import Conflict, DomainError
from webstore.item_size import ItemTooLarge

TTL_ATTRIBUTE = "expires_at"
GSI1 = "GSI1"
# Payments by status and time, subscriptions by age (docs/data-model.md, "GSI2").
GSI2 = "GSI2"

# The table's shape, shared by the local stack and the CDK stack.
KEY_SCHEMA = [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}]
ATTRIBUTE_DEFINITIONS = [
    {"AttributeName": name, "AttributeType": "S"}
    for name in ("PK", "SK", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK")
]
GLOBAL_SECONDARY_INDEXES = [
    {
        "IndexName": GSI1,
        "KeySchema": [
            {"AttributeName": "GSI1PK", "KeyType": "HASH"},
            {"AttributeName": "GSI1SK", "KeyType": "RANGE"},
        ],
        "Projection": {"ProjectionType": "ALL"},
    },
    {
        "IndexName": GSI2,
        "KeySchema": [
            {"AttributeName": "GSI2PK", "KeyType": "HASH"},
            {"AttributeName": "GSI2SK", "KeyType": "RANGE"},
        ],
        "Projection": {"ProjectionType": "ALL"},
    },
]
# The key attributes of each index (Query's key condition names them).
INDEX_KEYS = {None: ("PK", "SK"), GSI1: ("GSI1PK", "GSI1SK"), GSI2: ("GSI2PK", "GSI2SK")}

Item = dict[str, Any]
M = TypeVar("M", bound=BaseModel)


def to_attribute_value(value: Any) -> Any:
    """Plain Python → what DynamoDB stores: Decimal numbers, ISO strings for datetimes."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, float):
        return Decimal(str(value))
    if isinstance(value, int | Decimal | str):
        return value
    if isinstance(value, Mapping):
        return {str(k): to_attribute_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_attribute_value(v) for v in value]
    if isinstance(value, set | frozenset):
        return set(value)
    return str(value)


def plain_json(value: Any) -> Any:
    """What DynamoDB gave back, as plain JSON: its Decimal numbers as ints and floats again
    (custom data and webhook subjects go to clients that wrote JSON numbers)."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, Mapping):
        return {str(k): plain_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [plain_json(v) for v in value]
    return value


def to_item(model: BaseModel, pk: str, sk: str, entity: str, **extra: Any) -> Item:
    item: Item = {"PK": pk, "SK": sk, "entity": entity}
    item.update(to_attribute_value(model.model_dump()))
    item.update({k: to_attribute_value(v) for k, v in extra.items() if v is not None})
    return item


def from_item(model: type[M], item: Mapping[str, Any]) -> M:
    """The model's fields of an item; keys and bookkeeping attributes (counters) are left out."""
    fields = model.model_fields
    return model.model_validate({k: v for k, v in item.items() if k in fields})


def _values(values: Mapping[str, Any] | None) -> dict[str, Any] | None:
    return serialize({k: to_attribute_value(v) for k, v in values.items()}) if values else None


def condition_failed(error: ClientError) -> bool:
    return error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException"


def item_too_large(error: ClientError) -> bool:
    """The table refused a write because the item would pass its 400 KB limit."""
    details = error.response.get("Error", {})
    return details.get("Code") == "ValidationException" and "Item size" in details.get("Message", "")


class ConditionFailed(Conflict):
    """A single write's condition did not hold (the table's answer, as a domain error).

    Repositories catch it, or pass `fails=` to the write, to say what it means in their terms."""

    def __init__(
        self, detail: str = "The request conflicts with the current state; nothing was changed"
    ) -> None:
        super().__init__(detail)


class TransactionCancelled(Conflict):
    """A transaction's condition failed; `reasons` has one code per action ('None' if it held)."""

    def __init__(self, reasons: list[str]) -> None:
        super().__init__("The request conflicts with the current state; nothing was changed")
        self.reasons = reasons

    @property
    def failed_indexes(self) -> list[int]:
        return [i for i, code in enumerate(self.reasons) if code == "ConditionalCheckFailed"]


_reads = ThreadPoolExecutor(max_workers=4, thread_name_prefix="reads")
R = TypeVar("R")


def start_read(read: Callable[..., R], *args: Any) -> Future[R]:
    """Issue a read now, beside the request's main one; collect it with `.result()` afterwards
    (two round trips, one round-trip time)."""
    return _reads.submit(read, *args)


class Table:
    def __init__(self, client: Any, name: str) -> None:
        self.client = client
        self.name = name

    # --- reads ---

    def get(self, key: Mapping[str, str], *, consistent: bool = False) -> Item | None:
        response = self.client.get_item(TableName=self.name, Key=serialize(key), ConsistentRead=consistent)
        return deserialize(response["Item"]) if "Item" in response else None

    def batch_get(self, keys: Sequence[Mapping[str, str]], *, consistent: bool = False) -> list[Item]:
        """One BatchGetItem per 100 distinct keys (retrying unprocessed keys)."""
        unique = list({(k["PK"], k["SK"]): k for k in keys}.values())
        found: list[Item] = []
        for start in range(0, len(unique), 100):
            request: dict[str, Any] = {
                self.name: {
                    "Keys": [serialize(k) for k in unique[start : start + 100]],
                    "ConsistentRead": consistent,
                }
            }
            while request:
                response = self.client.batch_get_item(RequestItems=request)
                found.extend(deserialize(i) for i in response["Responses"].get(self.name, []))
                request = response.get("UnprocessedKeys") or {}
        return found

    def query(
        self,
        pk: str,
        *,
        sk_prefix: str | None = None,
        sk_between: tuple[str, str] | None = None,
        index: str | None = None,
        forward: bool = True,
        limit: int | None = None,
        start_key: Mapping[str, Any] | None = None,
        consistent: bool = False,
        filter_expression: str | None = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
        projection: str | None = None,
    ) -> tuple[list[Item], Item | None]:
        """One Query call: (items, the key to continue from or None)."""
        pk_name, sk_name = INDEX_KEYS[index]
        expression = "#pk = :pk"
        all_names = {"#pk": pk_name, **(names or {})}
        all_values: dict[str, Any] = {":pk": pk, **(values or {})}
        if sk_prefix is not None:
            expression += " AND begins_with(#sk, :sk)"
            all_names["#sk"] = sk_name
            all_values[":sk"] = sk_prefix
        elif sk_between is not None:
            expression += " AND #sk BETWEEN :lo AND :hi"
            all_names["#sk"] = sk_name
            all_values[":lo"], all_values[":hi"] = sk_between
        params: dict[str, Any] = {
            "TableName": self.name,
            "KeyConditionExpression": expression,
            "ExpressionAttributeNames": all_names,
            "ExpressionAttributeValues": _values(all_values),
            "ScanIndexForward": forward,
        }
        if index:
            params["IndexName"] = index
        else:
            params["ConsistentRead"] = consistent
        if limit:
            params["Limit"] = limit
        if start_key:
            params["ExclusiveStartKey"] = serialize(start_key)
        if filter_expression:
            params["FilterExpression"] = filter_expression
        if projection:  # attribute names only (e.g. "PK, SK"): key-only reads
            params["ProjectionExpression"] = projection
        response = self.client.query(**params)
        last = response.get("LastEvaluatedKey")
        return [deserialize(i) for i in response.get("Items", [])], (deserialize(last) if last else None)

    def scan(
        self,
        *,
        filter_expression: str,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> list[Item]:
        """Every item matching the filter, page by page. Only for the local stack's own upkeep
        (webstore.local_stream): no deployed function is allowed to Scan."""
        params: dict[str, Any] = {"TableName": self.name, "FilterExpression": filter_expression}
        if names:
            params["ExpressionAttributeNames"] = dict(names)
        serialized = _values(values)
        if serialized:
            params["ExpressionAttributeValues"] = serialized
        found: list[Item] = []
        while True:
            response = self.client.scan(**params)
            found.extend(deserialize(i) for i in response.get("Items", []))
            last = response.get("LastEvaluatedKey")
            if not last:
                return found
            params["ExclusiveStartKey"] = last

    # --- writes ---

    def put(
        self,
        item: Mapping[str, Any],
        *,
        condition: str | None = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
        fails: DomainError | None = None,
    ) -> None:
        """One PutItem. A failed condition raises `fails` (or ConditionFailed)."""
        params: dict[str, Any] = {"TableName": self.name, "Item": serialize(item)}
        _add_condition(params, condition, names, values)
        with _conditional(fails):
            self.client.put_item(**params)

    def update(
        self,
        key: Mapping[str, str],
        expression: str,
        *,
        condition: str | None = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
        return_values: str = "NONE",
        fails: DomainError | None = None,
    ) -> Item:
        """One UpdateItem. A failed condition raises `fails` (or ConditionFailed)."""
        params: dict[str, Any] = {
            "TableName": self.name,
            "Key": serialize(key),
            "UpdateExpression": expression,
            "ReturnValues": return_values,
        }
        _add_condition(params, condition, names, values)
        with _conditional(fails):
            response = self.client.update_item(**params)
        return deserialize(response.get("Attributes", {}))

    def delete(
        self,
        key: Mapping[str, str],
        *,
        condition: str | None = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
        fails: DomainError | None = None,
    ) -> None:
        """One DeleteItem. A failed condition raises `fails` (or ConditionFailed)."""
        params: dict[str, Any] = {"TableName": self.name, "Key": serialize(key)}
        _add_condition(params, condition, names, values)
        with _conditional(fails):
            self.client.delete_item(**params)

    def batch_write(self, items: Iterable[Mapping[str, Any]]) -> None:
        """Unconditional puts, 25 a call (the catalog import; the plugins' event batches)."""
        batch = [{"PutRequest": {"Item": serialize(i)}} for i in items]
        for start in range(0, len(batch), 25):
            request: dict[str, Any] = {self.name: batch[start : start + 25]}
            while request:
                response = self.client.batch_write_item(RequestItems=request)
                request = response.get("UnprocessedItems") or {}

    def transact(self, actions: Sequence[TransactAction]) -> None:
        """One TransactWriteItems: all or nothing. TransactionCancelled names what failed."""
        if not actions:
            return
        if len(actions) > 100:
            raise ValueError("a transaction holds at most 100 actions")
        try:
            self.client.transact_write_items(TransactItems=[a.to_request(self.name) for a in actions])
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                raise
            reasons = [r.get("Code", "None") for r in error.response.get("CancellationReasons", [])]
            if not reasons:
                reasons = _reasons_from_message(error.response.get("Error", {}).get("Message", ""))
            raise TransactionCancelled(reasons) from error


@contextmanager
def _conditional(fails: DomainError | None) -> Iterator[None]:
    """The one place a single write's failed condition becomes a domain error."""
    try:
        yield
    except ClientError as error:
        if item_too_large(error):  # the last line of defence; writers check sizes first
            raise ItemTooLarge("The record would pass the table's item size limit", field="body") from error
        if not condition_failed(error):
            raise
        raise (fails or ConditionFailed()) from error


class Transaction:
    """The actions of one TransactWriteItems, each labelled with what its failed condition means.

    Repositories add actions (`put`, `update`, `delete`, `check`) with `fails=` the domain error
    to raise when that action's condition does not hold; `commit()` writes them all or nothing.
    A failed action without a label is contention (someone wrote first): `commit()` raises
    `Contention`, which callers may retry after reading again. An action added with
    `contended=True` (an id taken from what was read) means contention when it fails, whatever
    else failed with it: the other failures may only follow from the stale read.
    """

    def __init__(self, table: Table) -> None:
        self.table = table
        self.actions: list[TransactAction] = []
        self.labels: list[DomainError | None] = []
        self.contended: set[int] = set()

    def __len__(self) -> int:
        return len(self.actions)

    def add(self, action: TransactAction, fails: DomainError | None = None) -> Transaction:
        self.actions.append(action)
        self.labels.append(fails)
        return self

    def put(
        self,
        item: Mapping[str, Any],
        *,
        condition: str | None = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
        fails: DomainError | None = None,
    ) -> Transaction:
        return self.add(TransactAction.put(item, condition, names, values), fails)

    def update(
        self,
        key: Mapping[str, str],
        expression: str,
        *,
        condition: str | None = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
        fails: DomainError | None = None,
        contended: bool = False,
    ) -> Transaction:
        if contended:
            self.contended.add(len(self.actions))
        return self.add(TransactAction.update(key, expression, condition, names, values), fails)

    def delete(
        self,
        key: Mapping[str, str],
        *,
        condition: str | None = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
        fails: DomainError | None = None,
    ) -> Transaction:
        return self.add(TransactAction.delete(key, condition, names, values), fails)

    def check(
        self,
        key: Mapping[str, str],
        condition: str,
        *,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
        fails: DomainError | None = None,
    ) -> Transaction:
        return self.add(TransactAction.check(key, condition, names, values), fails)

    def commit(self) -> None:
        """One TransactWriteItems. Raises Contention when a `contended` action failed, else the
        label of the first failed action that has one, else Contention (with the reasons)."""
        try:
            self.table.transact(self.actions)
        except TransactionCancelled as cancelled:
            if self.contended.intersection(cancelled.failed_indexes):
                raise Contention(cancelled.reasons) from cancelled
            for index in cancelled.failed_indexes:
                if index < len(self.labels) and self.labels[index] is not None:
                    raise self.labels[index] from cancelled  # type: ignore[misc]
            raise Contention(cancelled.reasons) from cancelled


class Contention(TransactionCancelled):
    """A transaction lost to a concurrent writer (no labelled condition failed): read and retry."""


def _reasons_from_message(message: str) -> list[str]:
    # "Transaction cancelled, please refer cancellation reasons ... [None, ConditionalCheckFailed]"
    if "[" not in message:
        return []
    inner = message[message.rindex("[") + 1 : message.rindex("]")]
    return [part.strip() for part in inner.split(",")]


def _add_condition(
    params: dict[str, Any],
    condition: str | None,
    names: Mapping[str, str] | None,
    values: Mapping[str, Any] | None,
) -> None:
    if condition:
        params["ConditionExpression"] = condition
    if names:
        params["ExpressionAttributeNames"] = dict(names)
    serialized = _values(values)
    if serialized:
        params["ExpressionAttributeValues"] = serialized


class TransactAction:
    """One action of a TransactWriteItems call."""

    def __init__(self, kind: str, body: dict[str, Any]) -> None:
        self.kind = kind
        self.body = body

    def to_request(self, table_name: str) -> dict[str, Any]:
        return {self.kind: {"TableName": table_name, **self.body}}

    @classmethod
    def put(
        cls,
        item: Mapping[str, Any],
        condition: str | None = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> TransactAction:
        body: dict[str, Any] = {"Item": serialize(item)}
        _add_condition(body, condition, names, values)
        return cls("Put", body)

    @classmethod
    def update(
        cls,
        key: Mapping[str, str],
        expression: str,
        condition: str | None = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> TransactAction:
        body: dict[str, Any] = {"Key": serialize(key), "UpdateExpression": expression}
        _add_condition(body, condition, names, values)
        return cls("Update", body)

    @classmethod
    def delete(
        cls,
        key: Mapping[str, str],
        condition: str | None = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> TransactAction:
        body: dict[str, Any] = {"Key": serialize(key)}
        _add_condition(body, condition, names, values)
        return cls("Delete", body)

    @classmethod
    def check(
        cls,
        key: Mapping[str, str],
        condition: str,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> TransactAction:
        body: dict[str, Any] = {"Key": serialize(key)}
        _add_condition(body, condition, names, values)
        return cls("ConditionCheck", body)


def create_table(client: Any, name: str) -> None:
    """Create the table as the CDK stack defines it (local stack and tests)."""
    client.create_table(
        TableName=name,
        KeySchema=KEY_SCHEMA,
        AttributeDefinitions=ATTRIBUTE_DEFINITIONS,
        GlobalSecondaryIndexes=GLOBAL_SECONDARY_INDEXES,
        BillingMode="PAY_PER_REQUEST",
    )
    client.update_time_to_live(
        TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": TTL_ATTRIBUTE}
    )
