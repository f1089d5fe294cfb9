"""`webstore import` with Stripe keys: sealed before they reach the table, the webhook URL to
register printed, refused without a sealing key (nothing written)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from infra.cli import main
from tests.support.demo import demo_catalog_data
from tests.support.environment import TABLE
from tests.support.localstripe import TEST_PUBLISHABLE_KEY, TEST_SECRET_KEY, TEST_WEBHOOK_SECRET
from webstore.db import Table
from webstore.keys import STORE_ITEM, store_pk

KEYS = {
    "publishable_key": TEST_PUBLISHABLE_KEY,
    "secret_key": TEST_SECRET_KEY,
    "webhook_secret": TEST_WEBHOOK_SECRET,
}


def catalog_with_keys(tmp_path: Path) -> Path:
    data = demo_catalog_data()
    data["gateways"] = {"stripe": KEYS}
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(data))
    return path


def test_import_seals_the_keys_and_prints_the_webhook_url(
    table: Table, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["import", str(catalog_with_keys(tmp_path)), "--table", TABLE, "--region", "us-east-1"]
    assert main([*argv, "--storefront-url", "https://shop.example.com/"]) == 0
    output = capsys.readouterr().out
    store = table.get({"PK": store_pk(demo_catalog_data()["store"]["id"]), "SK": STORE_ITEM})
    assert store is not None
    token = store["public_token"]
    assert f"stripe_webhook_url https://shop.example.com/webhooks/stripe/{token}" in output
    stored = json.dumps(store, default=str)
    assert TEST_PUBLISHABLE_KEY in stored
    assert TEST_SECRET_KEY not in stored and TEST_WEBHOOK_SECRET not in stored
    assert TEST_SECRET_KEY not in output and TEST_WEBHOOK_SECRET not in output


def test_import_of_keys_without_a_sealing_key_is_refused_and_writes_nothing(
    table: Table, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("WEBSTORE_WEBHOOK_KEY", raising=False)
    assert main(["import", str(catalog_with_keys(tmp_path)), "--table", TABLE, "--region", "us-east-1"]) == 2
    assert "--webhook-key-secret" in capsys.readouterr().err
    assert table.get({"PK": store_pk(demo_catalog_data()["store"]["id"]), "SK": STORE_ITEM}) is None
