"""The local stack's embedded DynamoDB: moto's table engine, in this process, made to hold a store.

moto is a mock: it keeps every model object it ever made reachable (`BaseModel.instances_tracked`,
for its dashboard), and its TransactWriteItems deep-copies the whole table once per action so it
can put the copy back if an action fails. Under a store that grows, both are unbounded: memory
grew by hundreds of MB per checkout and a big transaction spent seconds copying while holding the
table. `as_a_store()` changes both for as long as it is active:

- no instance tracking (the dashboard is not used; the tables hold what they hold);
- a transaction saves a copy of only the items its actions name and, if it is cancelled, puts
  those back (an item-level undo); what it does and answers is unchanged;
- a Query on the table's own key reads its partition, not every item of the table (moto filters
  a sorted list of the whole table on each Query, so every request slowed with the store's size:
  a checkout took 0.5 s at 50 payments and 1.3 s at 300).

`EmbeddedStore` is the table's critical section: one call at a time (moto is not thread-safe
inside a call), and, when the store has a journal (infra/state.py), every call that wrote hands
the after-images of the items it touched to the journal before it returns: the journal appends
and fsyncs them, so a change is on disk before its request is answered.

No imports of the service here: tests use it before their environment is set.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import threading
import types
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")
# One after-image: {"t": table name, "k": key (DynamoDB JSON), "i": the item, or None: deleted}.
Record = dict[str, Any]


@contextlib.contextmanager
def embedded_dynamodb(store: EmbeddedStore | None = None) -> Iterator[None]:
    """moto's DynamoDB, EventBridge and SQS, in this process, as a store, for as long as the
    block runs; every DynamoDB call (in process or through the HTTP endpoint) runs in `store`'s
    critical section."""
    from moto import mock_aws

    for name, value in (("AWS_ACCESS_KEY_ID", "local"), ("AWS_SECRET_ACCESS_KEY", "local")):
        os.environ.setdefault(name, value)
    with mock_aws(), as_a_store(store):
        yield


class _Discarded(list[Any]):
    """An `instances_tracked` that keeps nothing."""

    def append(self, _: Any) -> None:
        return


# --- what one call touched (guarded by the store's lock: one call in moto at a time) ---

_touched: dict[tuple[int, str, str], tuple[Any, str, dict[str, Any]]] | None = None
_journaled = False  # a store with a journal is running: a write outside `run` is a bug


def _note(backend: Any, table_name: str, key: dict[str, Any]) -> None:
    if _touched is None:
        if _journaled:
            raise RuntimeError("a write reached the embedded table outside its critical section")
        return
    canonical = json.dumps(key, sort_keys=True)
    _touched.setdefault((id(backend), table_name, canonical), (backend, table_name, key))


def _key_of(table: Any, attrs: dict[str, Any]) -> dict[str, Any]:
    key = {table.hash_key_attr: attrs[table.hash_key_attr]}
    if table.range_key_attr is not None:
        key[table.range_key_attr] = attrs[table.range_key_attr]
    return key


def _key_values(table: Any, key: dict[str, Any]) -> tuple[Any, Any]:
    from moto.dynamodb.models.dynamo_type import DynamoType

    hash_value = DynamoType(key[table.hash_key_attr])
    range_value = DynamoType(key[table.range_key_attr]) if table.range_key_attr is not None else None
    return hash_value, range_value


def stored_item(table: Any, key: dict[str, Any]) -> Any:
    """The moto Item at `key`, or None (without the side effect of moto's own lookup, which
    leaves an empty partition behind)."""
    hash_value, range_value = _key_values(table, key)
    found = table.items.get(hash_value)
    if range_value is None:
        return found
    return found.get(range_value) if found else None


def _put_back(table: Any, key: dict[str, Any], item: Any) -> None:
    hash_value, range_value = _key_values(table, key)
    if range_value is None:
        if item is None:
            table.items.pop(hash_value, None)
        else:
            table.items[hash_value] = item
        return
    if item is None:
        partition = table.items.get(hash_value)
        if partition is not None:
            partition.pop(range_value, None)
            if not partition:
                del table.items[hash_value]
    else:
        table.items[hash_value][range_value] = item


def after_images(touched: dict[Any, tuple[Any, str, dict[str, Any]]]) -> list[Record]:
    records: list[Record] = []
    for backend, table_name, key in touched.values():
        table = backend.tables.get(table_name)
        if table is None:
            continue
        item = stored_item(table, key)
        records.append({"t": table_name, "k": key, "i": item.to_json()["Attributes"] if item else None})
    return records


@contextlib.contextmanager
def as_a_store(store: EmbeddedStore | None = None) -> Iterator[None]:
    """While active (inside `mock_aws`): moto keeps no model instances, a transaction undoes only
    the items it touched, and writes are noted for the journal. With a `store`, each DynamoDB
    call moto answers (from a boto3 client in this process or its HTTP server) runs as one
    `store.run`: moto's own work on the call (its JSON in and out, the table) is the critical
    section; the caller's serialising and parsing (botocore) stay outside it."""
    from moto.core.model_instances import model_data
    from moto.dynamodb import models as dynamodb_models
    from moto.dynamodb.responses import DynamoHandler

    call_action = DynamoHandler.call_action

    def in_store(self: Any) -> Any:
        assert store is not None
        return store.run(lambda: call_action(self))

    if dynamodb_models.copy is _COPY:  # already a store (the test suite's): route the calls
        models = [model for found in model_data.values() for model in found.values()]
        for model in models:  # and track nothing (each `mock_aws` start tracks again)
            model.instances_tracked = _Discarded()  # type: ignore[attr-defined]
        if store is not None:
            DynamoHandler.call_action = in_store  # type: ignore[method-assign]
        try:
            yield
        finally:
            DynamoHandler.call_action = call_action  # type: ignore[method-assign]
            for model in models:
                model.instances_tracked = []  # type: ignore[attr-defined]
        return
    if dynamodb_models.copy is not copy:
        raise RuntimeError("moto changed: revisit infra/embedded.py (transactions)")
    from moto.dynamodb.models.table import Table as MotoTable

    backend_class = dynamodb_models.DynamoDBBackend
    table_query, table_all_items = MotoTable.query, MotoTable.all_items

    def query(self: Any, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        """moto's Query; on the table's own key (no index) its candidates are the partition."""
        index_name = args[6] if len(args) > 6 else kwargs.get("index_name")
        if index_name or not self.range_key_attr:
            return table_query(self, hash_key, *args, **kwargs)
        _partition.of = (self, list(self.items.get(hash_key, {}).values()))
        try:
            return table_query(self, hash_key, *args, **kwargs)
        finally:
            _partition.of = None

    def all_items(self: Any) -> Any:
        scope = _partition.of
        if scope is not None and scope[0] is self:
            return scope[1]
        return table_all_items(self)

    originals = {
        name: getattr(backend_class, name)
        for name in ("put_item", "update_item", "delete_item", "transact_write_items")
    }

    def put_item(self: Any, table_name: str, item_attrs: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        result = originals["put_item"](self, table_name, item_attrs, *args, **kwargs)
        _note(self, table_name, _key_of(self.get_table(table_name), item_attrs))
        return result

    def update_item(self: Any, table_name: str, key: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        try:
            return originals["update_item"](self, table_name, key, *args, **kwargs)
        finally:  # an update that failed half-way may have changed the item: journal what is there
            _note(self, table_name, key)

    def delete_item(self: Any, table_name: str, key: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        result = originals["delete_item"](self, table_name, key, *args, **kwargs)
        _note(self, table_name, key)
        return result

    def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
        """moto's transaction, with an undo of the items its actions name instead of a copy of
        every table per action (moto's copy is made the identity while it runs)."""
        saved: list[tuple[Any, dict[str, Any], Any]] = []
        streams: dict[int, tuple[Any, int]] = {}
        seen: set[tuple[str, str]] = set()
        for action in transact_items:
            op = next(iter(action.values()), None)
            if not isinstance(op, dict) or op.get("TableName") not in self.tables:
                continue
            table = self.tables[op["TableName"]]
            try:
                key = op["Key"] if "Key" in op else _key_of(table, op.get("Item") or {})
                item = stored_item(table, key)
            except Exception:  # a malformed action: moto refuses it before changing anything
                continue
            ident = (op["TableName"], json.dumps(key, sort_keys=True))
            if ident in seen:
                continue
            seen.add(ident)
            saved.append((table, key, copy.deepcopy(item)))
            if table.stream_shard is not None:
                streams.setdefault(id(table), (table.stream_shard, len(table.stream_shard.items)))
        _no_table_copies.active = True
        try:
            originals["transact_write_items"](self, transact_items)
        except BaseException:
            for table, key, item in reversed(saved):
                _put_back(table, key, item)
            for shard, length in streams.values():
                del shard.items[length:]
            if _touched is not None:  # as they were: nothing to journal
                for table, key, _ in saved:
                    _touched.pop((id(self), table.name, json.dumps(key, sort_keys=True)), None)
            raise
        finally:
            _no_table_copies.active = False

    saved_tracking = {
        model: model.instances_tracked  # type: ignore[attr-defined]
        for models in model_data.values()
        for model in models.values()
    }
    for model in saved_tracking:
        model.instances_tracked = _Discarded()  # type: ignore[attr-defined]
    dynamodb_models.copy = _COPY  # type: ignore[assignment]
    replaced = {
        "put_item": put_item,
        "update_item": update_item,
        "delete_item": delete_item,
        "transact_write_items": transact_write_items,
    }
    for name, function in replaced.items():
        setattr(backend_class, name, function)
    MotoTable.query, MotoTable.all_items = query, all_items  # type: ignore[method-assign]
    if store is not None:
        DynamoHandler.call_action = in_store  # type: ignore[method-assign]
    try:
        yield
    finally:
        DynamoHandler.call_action = call_action  # type: ignore[method-assign]
        MotoTable.query, MotoTable.all_items = table_query, table_all_items  # type: ignore[method-assign]
        for name, function in originals.items():
            setattr(backend_class, name, function)
        dynamodb_models.copy = copy
        for model in saved_tracking:
            model.instances_tracked = []  # type: ignore[attr-defined]


class _NoTableCopies(threading.local):
    active = False


class _Partition(threading.local):
    """The partition a Query on the table's key runs over (moto asks `all_items()` for its
    candidates): (table, its items in that partition), or None."""

    of: tuple[Any, list[Any]] | None = None


_partition = _Partition()


_no_table_copies = _NoTableCopies()


def _deepcopy(value: Any, memo: dict[int, Any] | None = None) -> Any:
    """moto's `copy.deepcopy` inside its DynamoDB backend: a table is not copied while a
    transaction runs (the transaction's undo restores what it touched); anything else is."""
    from moto.dynamodb.models.table import Table

    if _no_table_copies.active and isinstance(value, Table):
        return value
    return copy.deepcopy(value, memo)


class EmbeddedStore:
    """The embedded table's critical section (`as_a_store(store)` runs every DynamoDB call moto
    answers through it). `run(call)` runs one call against moto while holding the lock; if
    `journal` is set, the after-images of the items the call wrote are handed to it (still under
    the lock, so the journal's order is the table's) before `run` returns. Reentrant: a call
    inside a call journals with the outer one."""

    def __init__(self, lock: Any = None) -> None:
        self.lock = lock or threading.RLock()
        self.journal: Callable[[list[Record]], None] | None = None

    def run(self, call: Callable[[], T]) -> T:
        global _touched, _journaled
        with self.lock:
            if self.journal is None or _touched is not None:
                return call()
            _journaled = True
            _touched = {}
            try:
                return call()
            finally:
                touched, _touched = _touched, None
                if touched:
                    self.journal(after_images(touched))

    def close(self) -> None:
        """No journal from now on (the store is stopping)."""
        global _journaled
        with self.lock:
            self.journal = None
            _journaled = False


def moto_table(client: Any, table_name: str) -> Any:
    """moto's Table object behind `client`'s `table_name` (in this process)."""
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    account = os.environ.get("MOTO_ACCOUNT_ID", DEFAULT_ACCOUNT_ID)
    return dynamodb_backends[account][client.meta.region_name].get_table(table_name)


def load_items(client: Any, table_name: str, items: Iterable[dict[str, Any]]) -> int:
    """Put `items` (DynamoDB JSON) straight into the embedded table, as they are (no conditions,
    no journal: they come from it); how many."""
    table = moto_table(client, table_name)
    count = 0
    for attrs in items:
        table.put_item(attrs)
        count += 1
    return count


_COPY = types.SimpleNamespace(deepcopy=_deepcopy)
