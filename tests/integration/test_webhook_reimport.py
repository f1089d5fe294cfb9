"""Issue 10.7: re-importing a catalog keeps a webhook endpoint's validation unless its URL or
signing secret changed (a reset endpoint would miss events while its receiver is down)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.demo import demo_catalog_data
from webstore.catalog_import import import_catalog, parse_catalog
from webstore.db import Table
from webstore.keys import account_pk, key, webhook_sk
from webstore.secret_box import SecretBox

BOX = SecretBox(lambda: "k" * 64)
URL = "https://hooks.example.com/webstore"
SECRET = "whsec-reimport-0123456789"


def import_with(table: Table, url: str = URL, secret: str = SECRET) -> None:
    data: dict[str, Any] = demo_catalog_data()
    data["webhooks"] = [{"id": 1, "url": url, "secret": secret}]
    import_catalog(table, parse_catalog(data), box=BOX)


def validated(table: Table) -> bool:
    item = table.get(key(account_pk(demo_catalog_data()["store"]["id"]), webhook_sk(1)), consistent=True)
    assert item is not None
    return bool(item["validated"])


def mark_validated(table: Table) -> None:
    account = demo_catalog_data()["store"]["id"]
    table.update(key(account_pk(account), webhook_sk(1)), "SET validated = :yes", values={":yes": True})


def test_reimporting_an_unchanged_endpoint_keeps_it_validated(table: Table) -> None:
    import_with(table)
    assert not validated(table)
    mark_validated(table)
    import_with(table)
    assert validated(table)


@pytest.mark.parametrize(
    "change", [{"url": "https://other.example.com/hook"}, {"secret": "whsec-rotated-9876543210"}]
)
def test_a_new_url_or_secret_must_validate_again(table: Table, change: dict[str, str]) -> None:
    import_with(table)
    mark_validated(table)
    import_with(table, **change)
    assert not validated(table)
