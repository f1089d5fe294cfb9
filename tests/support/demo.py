"""The demo catalog (shared/webstore/demo/store.json) and the store it imports."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from webstore.catalog_import import ImportResult, import_catalog, parse_catalog
from webstore.db import Table

DEMO_CATALOG = Path(__file__).resolve().parents[2] / "shared" / "webstore" / "demo" / "store.json"


@cache
def _demo_catalog_text() -> str:
    return DEMO_CATALOG.read_text()


def demo_catalog_data() -> dict[str, Any]:
    """A fresh copy of the demo catalog's JSON (the file is read once per process)."""
    return dict(json.loads(_demo_catalog_text()))


@dataclass
class DemoStore:
    result: ImportResult
    table: Table

    @property
    def token(self) -> str:
        return self.result.public_token

    @property
    def checkout_key(self) -> str:
        assert self.result.checkout_api_key
        return self.result.checkout_api_key

    @property
    def server_secret(self) -> str:
        secret = self.result.server_secrets[1]
        assert secret
        return secret

    def basic_auth(self) -> dict[str, str]:
        raw = f"{self.token}:{self.checkout_key}".encode()
        return {"authorization": "Basic " + base64.b64encode(raw).decode()}


def import_demo(table: Table) -> DemoStore:
    """The demo store imported into `table`, as `webstore import` imports it."""
    return DemoStore(import_catalog(table, parse_catalog(demo_catalog_data())), table)


def import_other_store(table: Table) -> ImportResult:
    """A second store (account 2): the demo catalog under another id, freshly imported."""
    data = demo_catalog_data()
    data["store"] = {**data["store"], "id": 2, "name": "Other Craft"}
    return import_catalog(table, parse_catalog(data))


@dataclass(frozen=True)
class _Snapshot:
    result: ImportResult
    items: tuple[dict[str, Any], ...]  # as DynamoDB returns them (attribute-value form)


_snapshot: list[_Snapshot] = []
BATCH = 25  # BatchWriteItem's limit


def restore_demo(table: Table) -> DemoStore:
    """The demo store as `import_demo` leaves an empty table, fast: the first call in a process
    imports it and keeps the items written; later calls write those items back in a few batch
    writes (the same tokens and secrets, a fresh table each time). `table` must be empty."""
    if not _snapshot:
        store = import_demo(table)
        page = table.client.scan(TableName=table.name)
        assert "LastEvaluatedKey" not in page, "the demo store outgrew one scan page"
        _snapshot.append(_Snapshot(store.result, tuple(page["Items"])))
        return store
    snapshot = _snapshot[0]
    for start in range(0, len(snapshot.items), BATCH):
        chunk = snapshot.items[start : start + BATCH]
        requests = [{"PutRequest": {"Item": item}} for item in chunk]
        unprocessed = table.client.batch_write_item(RequestItems={table.name: requests})
        assert not unprocessed.get("UnprocessedItems"), unprocessed
    result = snapshot.result
    return DemoStore(replace(result, server_secrets=dict(result.server_secrets)), table)
