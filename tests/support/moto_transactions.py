"""moto's TransactWriteItems made as fast as its semantics need (tests only).

moto 5 backs up the whole table before a transaction, to restore it if an action fails, but it
does so once per action (`copy.deepcopy(self.tables[name])` inside the loop over the actions):
a fulfilment transaction of 10 actions deep-copies every item of the table 10 times, and the
time of each test grows with the items the earlier steps wrote. The backups are taken before any
action runs, so every copy of one table is the same: `backup_once` hands moto the first copy
again for the rest of that transaction. What the transaction does, and restores, is unchanged.
"""

from __future__ import annotations

import contextvars
import copy
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from moto.dynamodb import models as dynamodb_models
from moto.dynamodb.models.table import Table

_backups: contextvars.ContextVar[dict[int, Table] | None] = contextvars.ContextVar("backups", default=None)


def _deepcopy(value: Any, memo: dict[int, Any] | None = None) -> Any:
    backups = _backups.get()
    if backups is None or not isinstance(value, Table):
        return copy.deepcopy(value, memo)
    if id(value) not in backups:
        backups[id(value)] = copy.deepcopy(value, memo)
    return backups[id(value)]


_copy_module = types.SimpleNamespace(deepcopy=_deepcopy)


@contextmanager
def backup_once() -> Iterator[None]:
    """While active, moto's DynamoDB backend copies each table once per transaction."""
    assert dynamodb_models.copy is copy, "moto changed: revisit tests/support/moto_transactions.py"
    original = dynamodb_models.DynamoDBBackend.transact_write_items

    def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
        token = _backups.set({})
        try:
            original(self, transact_items)
        finally:
            _backups.reset(token)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dynamodb_models, "copy", _copy_module)
        patch.setattr(dynamodb_models.DynamoDBBackend, "transact_write_items", transact_write_items)
        yield
