"""The demo catalog (shared/webstore/demo/store.json) and the store it imports."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
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
